package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

type rates struct {
	Base  string             `json:"base"`
	Rates map[string]float64 `json:"rates"`
}

func main() {
	resp, err := http.Get("https://api.example.com/v1/rates?base=EUR")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var r rates
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		panic(err)
	}
	fmt.Println(r.Base, r.Rates["USD"])
}
