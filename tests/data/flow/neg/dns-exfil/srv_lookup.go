package discovery

import (
	"fmt"
	"net"
)

func Endpoints(service, domain string) ([]string, error) {
	_, addrs, err := net.LookupSRV(service, "tcp", domain)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range addrs {
		out = append(out, fmt.Sprintf("%s:%d", a.Target, a.Port))
	}
	return out, nil
}
