// Command render renders a Helm chart's templates the way Helm does, for the chart specs: Go's
// text/template with the sprig function library, plus the Helm functions the chart uses
// (include, tpl, toYaml, required). Test-only: no helm binary installs here.
//
// Build in GOPATH mode (Debian's golang-github-masterminds-sprig-dev, golang-gopkg-yaml.v3-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o render render.go
//	render -chart chart [-values override.yaml]... [-name svc] [-namespace default]
//
// It prints one JSON object: {"manifests": {"templates/x.yaml": text}, "notes": text,
// "values": the merged values}. A template error, `required` or `fail` exits 1 with the message
// on stderr. Not covered: .Capabilities, .Files, lookup, subcharts, hooks, schema validation
// (the specs check values.schema.json themselves).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v3"
)

type valueFiles []string

func (v *valueFiles) String() string     { return strings.Join(*v, ",") }
func (v *valueFiles) Set(s string) error { *v = append(*v, s); return nil }

func main() {
	chartDir := flag.String("chart", "chart", "chart directory")
	name := flag.String("name", "svc", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	var overrides valueFiles
	flag.Var(&overrides, "values", "values file merged over the chart's values.yaml (repeatable)")
	flag.Parse()
	out, err := render(*chartDir, *name, *namespace, overrides)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}

func render(chartDir, name, namespace string, overrides []string) ([]byte, error) {
	chart, err := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return nil, err
	}
	values, err := readYAML(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return nil, err
	}
	for _, file := range overrides {
		override, err := readYAML(file)
		if err != nil {
			return nil, err
		}
		values = coalesce(values, override)
	}
	chartName, _ := chart["name"].(string)
	data := map[string]interface{}{
		"Values":  values,
		"Release": map[string]interface{}{"Name": name, "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Chart":   helmChart(chart),
	}

	files, err := filepath.Glob(filepath.Join(chartDir, "templates", "*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	root := template.New(chartName).Option("missingkey=zero")
	root.Funcs(funcs(root))
	var rendered []string
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		// Helm names templates <chart>/templates/<file>; files starting with _ only define partials.
		templateName := chartName + "/templates/" + filepath.Base(file)
		if _, err := root.New(templateName).Parse(string(text)); err != nil {
			return nil, err
		}
		if !strings.HasPrefix(filepath.Base(file), "_") {
			rendered = append(rendered, templateName)
		}
	}

	manifests := map[string]string{}
	notes := ""
	for _, templateName := range rendered {
		data["Template"] = map[string]interface{}{"Name": templateName, "BasePath": chartName + "/templates"}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, templateName, data); err != nil {
			return nil, err
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		relative := strings.TrimPrefix(templateName, chartName+"/")
		if filepath.Base(templateName) == "NOTES.txt" {
			notes = text
		} else {
			manifests[relative] = text
		}
	}
	return json.Marshal(map[string]interface{}{"manifests": manifests, "notes": notes, "values": values})
}

// funcs: sprig's, then Helm's own, which need the template set (include, tpl).
func funcs(root *template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	depth := 0
	f["include"] = func(name string, data interface{}) (string, error) {
		if depth++; depth > 1000 {
			return "", fmt.Errorf("include %q: too deep, a template includes itself", name)
		}
		defer func() { depth-- }()
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err := clone.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return strings.ReplaceAll(buf.String(), "<no value>", ""), err
	}
	f["toYaml"] = func(v interface{}) string {
		var buf bytes.Buffer
		encoder := yaml.NewEncoder(&buf)
		encoder.SetIndent(2)
		if err := encoder.Encode(v); err != nil {
			return ""
		}
		return strings.TrimSuffix(buf.String(), "\n")
	}
	f["required"] = func(message string, v interface{}) (interface{}, error) {
		if s, isString := v.(string); v == nil || (isString && s == "") {
			return v, fmt.Errorf("%s", message)
		}
		return v, nil
	}
	return f
}

// readYAML reads a YAML mapping as Helm holds values: through JSON, so numbers are float64.
func readYAML(path string) (map[string]interface{}, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw interface{}
	if err := yaml.Unmarshal(text, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	asJSON, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	values := map[string]interface{}{}
	if err := json.Unmarshal(asJSON, &values); err != nil {
		return nil, fmt.Errorf("%s: expected a mapping: %v", path, err)
	}
	return values, nil
}

// coalesce merges override over base as Helm merges values files: maps key by key, anything
// else replaced, a null deleting the key.
func coalesce(base, override map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range override {
		if v == nil {
			delete(out, k)
			continue
		}
		baseMap, baseIsMap := out[k].(map[string]interface{})
		overrideMap, overrideIsMap := v.(map[string]interface{})
		if baseIsMap && overrideIsMap {
			out[k] = coalesce(baseMap, overrideMap)
		} else {
			out[k] = v
		}
	}
	return out
}

// helmChart is .Chart as templates see it: Chart.yaml's fields, capitalised (Name, Version, AppVersion).
func helmChart(chart map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range chart {
		if k == "apiVersion" {
			out["APIVersion"] = v
		} else if k == "appVersion" {
			out["AppVersion"] = v
		} else {
			out[strings.ToUpper(k[:1])+k[1:]] = v
		}
	}
	return out
}
