package server

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The OpenAPI file documents exactly the routes the server serves.
func TestOpenAPIListsRoutes(t *testing.T) {
	b, err := os.ReadFile("../../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var documented []string
	for p, ops := range doc.Paths {
		for m := range ops {
			documented = append(documented, strings.ToUpper(m)+" "+p)
		}
	}
	slices.Sort(documented)
	want := []string{"GET /healthz", "GET /metrics", "GET /v1/jobs/{id}", "GET /v1/status", "POST /v1/jobs",
		"POST /v1/jobs/{id}/acquire", "POST /v1/jobs/{id}/cancel", "POST /v1/jobs/{id}/done", "POST /v1/jobs/{id}/next",
		"POST /v1/jobs/{id}/release", "POST /v1/jobs/{id}/renew"}
	if !slices.Equal(documented, want) {
		t.Fatalf("documented %v\nserved %v", documented, want)
	}
	// and the server serves them
	s, _ := newTestServer(t, "ordered", true, nil)
	for _, r := range want {
		m, p, _ := strings.Cut(r, " ")
		code, _ := do(t, s.Handler(), call{m, strings.ReplaceAll(p, "{id}", "nojob"), `{"now":1}`, "", false})
		if code == 404 && !strings.Contains(p, "{id}") {
			t.Errorf("%s: 404", r)
		}
	}
}
