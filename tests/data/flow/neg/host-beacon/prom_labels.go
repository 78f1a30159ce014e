package main

import (
	"log"
	"net/http"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	host, _ := os.Hostname()
	up := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "worker_up",
		ConstLabels: prometheus.Labels{"instance": host},
	})
	prometheus.MustRegister(up)
	up.Set(1)
	http.Handle("/metrics", promhttp.Handler())
	log.Fatal(http.ListenAndServe(":9100", nil))
}
