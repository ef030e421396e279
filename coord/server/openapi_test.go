package server

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"

	"go.yaml.in/yaml/v3"
)

// The OpenAPI file documents exactly the routes the server registers
// (read from routes() in handlers.go: every m.Handle or m.HandleFunc of a
// method and a path, but the opt-in /debug/pprof/ ones), and the server
// serves each of them.
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
	src, err := os.ReadFile("handlers.go")
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, m := range regexp.MustCompile(`m\.Handle(?:Func)?\("([A-Z]+ /[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
		if !strings.Contains(m[1], "/debug/pprof/") {
			served = append(served, m[1])
		}
	}
	slices.Sort(served)
	if len(served) < 14 {
		t.Fatalf("read only %d routes from handlers.go: %v", len(served), served)
	}
	if !slices.Equal(documented, served) {
		t.Fatalf("documented %v\nserved %v", documented, served)
	}
	// and the server serves them
	s, _ := newTestServer(t, "ordered", true, nil)
	for _, r := range served {
		m, p, _ := strings.Cut(r, " ")
		code, _ := do(t, s, call{m, strings.ReplaceAll(p, "{id}", "nojob"), `{"now_s":1}`, "", false})
		if code == 404 && !strings.Contains(p, "{id}") && !strings.Contains(p, "/members") {
			t.Errorf("%s: 404", r)
		}
	}
}

// Each schema of the OpenAPI file lists exactly the json names of the Go
// type the server reads or writes for it, and every name served follows
// the one style: snake_case, the unit as suffix.
func TestOpenAPISchemasAreTheTypes(t *testing.T) {
	b, err := os.ReadFile("../../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	types := map[string]any{"Error": api.ErrorBody{}, "Now": api.NowRequest{}, "RegisterRequest": api.RegisterRequest{},
		"Spec": api.SpecView{}, "Lease": api.LeaseView{}, "Job": api.JobView{}, "RegisterResponse": api.RegisterResponse{},
		"Advice": api.AdviceView{}, "AcquireRequest": api.AcquireRequest{}, "Grant": coord.Grant{}, "Notice": coord.Notice{},
		"CancelRequest": api.CancelRequest{}, "TokenRequest": api.ReleaseRequest{}, "DoneRequest": api.DoneRequest{},
		"DoneResponse": api.DoneResponse{}, "Counters": api.Counters{}, "Status": api.StatusView{},
		"Member": api.Member{}, "Group": api.GroupView{}}
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	for name, v := range types {
		sc, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("schema %s missing", name)
			continue
		}
		var documented, tags []string
		for p := range sc.Properties {
			documented = append(documented, p)
		}
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if tag == "" || tag == "-" {
				t.Errorf("%s.%s has no json name", rt.Name(), rt.Field(i).Name)
				continue
			}
			if !snake.MatchString(tag) {
				t.Errorf("%s.%s: %q is not snake_case", rt.Name(), rt.Field(i).Name, tag)
			}
			tags = append(tags, tag)
		}
		slices.Sort(documented)
		slices.Sort(tags)
		if !slices.Equal(documented, tags) {
			t.Errorf("schema %s documents %v, type %s has %v", name, documented, rt.Name(), tags)
		}
	}
}
