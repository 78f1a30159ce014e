// Command statusctl reports deployment status to the internal status API.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"time"
)

type report struct {
	Service string    `json:"service"`
	Version string    `json:"version"`
	At      time.Time `json:"at"`
}

func main() {
	api := os.Getenv("STATUS_API")
	if api == "" {
		api = "http://localhost:8080"
	}
	rev, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		log.Fatal(err)
	}
	body, _ := json.Marshal(report{Service: "notes", Version: string(bytes.TrimSpace(rev)), At: time.Now()})

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, api+"/v1/reports", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("STATUS_TOKEN"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fmt.Println("status:", resp.Status)

	cmd := exec.Command("go", "version")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	cmd.Stdout = os.Stdout
	_ = cmd.Run()
}
