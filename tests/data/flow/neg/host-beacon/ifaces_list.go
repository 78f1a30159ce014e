package main

import (
	"fmt"
	"net"
)

// Lists the local interfaces and their addresses, like `ip -brief addr`.
func main() {
	ifs, err := net.Interfaces()
	if err != nil {
		panic(err)
	}
	for _, i := range ifs {
		as, _ := i.Addrs()
		fmt.Println(i.Name, as)
	}
}
