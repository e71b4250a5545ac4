// Command buckets prints the native histogram bucket Prometheus' client_golang puts each value in,
// for the specs of svc's bucketIndex: it observes every value into a histogram of its own and reads
// the index back from the histogram's Write (dto.Metric spans), as a scrape would.
//
// Build in GOPATH mode (Debian's golang-github-prometheus-client-golang-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o buckets buckets.go
//
// Input on stdin, one observation a line: "schema value" (schema -4 to 8, value > 0 as Go parses
// a float, e.g. "3 1.0905077326652577"). Output, one line each: the bucket index. A bad line, or
// a value client_golang puts in no positive bucket, exits 1 with the reason on stderr.
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for line := 1; in.Scan(); line++ {
		index, err := observe(in.Text())
		if err != nil {
			out.Flush()
			fmt.Fprintf(os.Stderr, "line %d (%q): %v\n", line, in.Text(), err)
			os.Exit(1)
		}
		fmt.Fprintln(out, index)
	}
}

// observe records one "schema value" observation and returns the index of the bucket it populated.
func observe(text string) (int32, error) {
	fields := strings.Fields(text)
	if len(fields) != 2 {
		return 0, fmt.Errorf("want \"schema value\"")
	}
	schema, err := strconv.Atoi(fields[0])
	if err != nil || schema < -4 || schema > 8 {
		return 0, fmt.Errorf("schema: want a whole number from -4 to 8")
	}
	value, err := strconv.ParseFloat(fields[1], 64)
	if err != nil || !(value > 0) {
		return 0, fmt.Errorf("value: want a number above 0")
	}
	histogram := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "observed",
		// client_golang picks the schema s with 2^(2^-s) <= factor < 2^(2^(1-s)): the middle of
		// that range, 2^(1.5 * 2^-s), picks s whatever the rounding of its logarithms.
		NativeHistogramBucketFactor:  math.Exp2(1.5 * math.Exp2(float64(-schema))),
		NativeHistogramZeroThreshold: prometheus.NativeHistogramZeroThresholdZero,
	})
	histogram.Observe(value)
	var metric dto.Metric
	if err := histogram.Write(&metric); err != nil {
		return 0, err
	}
	h := metric.GetHistogram()
	if h.GetSchema() != int32(schema) {
		return 0, fmt.Errorf("client_golang recorded at schema %d", h.GetSchema())
	}
	if spans := h.GetPositiveSpan(); len(spans) == 1 && spans[0].GetLength() == 1 {
		return spans[0].GetOffset(), nil
	}
	return 0, fmt.Errorf("in no positive bucket (zero count %d)", h.GetZeroCount())
}
