package main

import (
	"fmt"
	"net/http"
	"os"
)

func main() {
	base := os.Getenv("STATUS_URL")
	if base == "" {
		base = "https://status.example.com"
	}
	region := os.Getenv("REGION")
	resp, err := http.Get(base + "/api/v1/status?region=" + region)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	fmt.Println("status:", resp.Status)
}
