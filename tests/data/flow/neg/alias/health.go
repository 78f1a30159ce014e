package main

import (
	"encoding/json"
	"log"
	h "net/http"
	"os"
	"time"
)

var started = time.Now()

func health(w h.ResponseWriter, r *h.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"status": "ok",
		"uptime": time.Since(started).String(),
	})
}

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	mux := h.NewServeMux()
	mux.HandleFunc("/healthz", health)
	log.Printf("listening on %s", addr)
	log.Fatal(h.ListenAndServe(addr, mux))
}
