package report

import (
	"regexp"
	"strings"
	"testing"
)

func TestMarkdownBlocks(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"heading shifted", "# Title\n## Sub", "<h4>Title</h4>\n<h5>Sub</h5>\n"},
		{"heading capped at 6", "##### deep", "<h6>deep</h6>\n"},
		{"paragraphs", "one\ntwo\n\nthree", "<p>one\ntwo</p>\n<p>three</p>\n"},
		{"bullets", "- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n"},
		{"ordered from 3", "3. a\n4. b", "<ol start=\"3\">\n<li>a</li>\n<li>b</li>\n</ol>\n"},
		{"nested", "- a\n  - b\n- c", "<ul>\n<li>a\n<ul>\n<li>b</li>\n</ul></li>\n<li>c</li>\n</ul>\n"},
		{"fence", "```\nx < y\n```", "<pre><code>x &lt; y</code></pre>\n"},
		{"indented code", "    a\n    b", "<pre><code>a\nb</code></pre>\n"},
		{"rule", "---", "<hr>\n"},
		{"quote", "> said", "<blockquote>\n<p>said</p>\n</blockquote>\n"},
		{"table", "| a | b |\n|---|--:|\n| 1 | 2 |",
			"<table>\n<thead><tr><th>a</th><th style=\"text-align:right\">b</th></tr></thead>\n<tbody>\n<tr><td>1</td><td style=\"text-align:right\">2</td></tr>\n</tbody>\n</table>\n"},
		{"raw html escaped", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"},
	}
	for _, c := range cases {
		if got := Markdown(c.in, 3); got != c.want {
			t.Errorf("%s: Markdown(%q)\n got %q\nwant %q", c.name, c.in, got, c.want)
		}
	}
}

func TestMarkdownTableInsideListItem(t *testing.T) {
	in := "- Two jobs:\n\n    | s | w |\n    |---|---|\n    | O | 2 |\n\n- next"
	got := Markdown(in, 0)
	for _, want := range []string{"<li>Two jobs:\n<table>", "<td>O</td><td>2</td>", "<li>next</li>"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Count(got, "<ul>") != 1 {
		t.Errorf("want one list, got\n%s", got)
	}
}

func TestInline(t *testing.T) {
	cases := []struct{ in, want string }{
		{"**bold** and *em* and _em_", "<strong>bold</strong> and <em>em</em> and <em>em</em>"},
		{"`a*b*c` *x*", "<code>a*b*c</code> <em>x</em>"},
		{"snake_case_name", "snake_case_name"},
		{"2 * 3 * 4", "2 * 3 * 4"},
		{"[doc](https://example.org/a)", `<a href="https://example.org/a">doc</a>`},
		{"[x](javascript:alert(1))", "x)"},
		{"a < b & c", "a &lt; b &amp; c"},
	}
	for _, c := range cases {
		if got := Inline(c.in); got != c.want {
			t.Errorf("Inline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

var tagRe = regexp.MustCompile(`<(/?)([a-z0-9]+)`)

var allowedTags = map[string]bool{"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"p": true, "ul": true, "ol": true, "li": true, "pre": true, "code": true, "hr": true, "blockquote": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "strong": true, "em": true, "a": true}

// checkMarkup asserts the properties of any rendering: only the subset's
// tags, each opened tag closed in order (hr excepted), and no attribute
// but href, start and style.
func checkMarkup(t *testing.T, in, out string) {
	t.Helper()
	var stack []string
	for _, m := range tagRe.FindAllStringSubmatch(out, -1) {
		tag := m[2]
		if !allowedTags[tag] {
			t.Fatalf("Markdown(%q): tag <%s> outside the subset in %q", in, tag, out)
		}
		if tag == "hr" {
			continue
		}
		if m[1] == "" {
			stack = append(stack, tag)
			continue
		}
		if len(stack) == 0 || stack[len(stack)-1] != tag {
			t.Fatalf("Markdown(%q): </%s> closes %v in %q", in, tag, stack, out)
		}
		stack = stack[:len(stack)-1]
	}
	if len(stack) != 0 {
		t.Fatalf("Markdown(%q): unclosed %v in %q", in, stack, out)
	}
	if strings.Contains(out, "<script") || strings.Contains(out, "javascript:") || strings.Contains(out, " on") && regexp.MustCompile(`<[^>]*\son\w+=`).MatchString(out) {
		t.Fatalf("Markdown(%q): active content in %q", in, out)
	}
}

func TestMarkdownFindingsWellFormed(t *testing.T) {
	for _, dir := range []string{"../repro/reservation", "../repro/profiles", "../repro/cloud", "../repro/coop", "../repro/capacity"} {
		b := readFile(t, dir+"/FINDINGS.md")
		out := Markdown(string(b), 2)
		checkMarkup(t, dir, out)
		if !strings.Contains(out, "<h3>") || !strings.Contains(out, "<li>") {
			t.Errorf("%s: no heading or list rendered", dir)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# a\n- b\n  - c\n\n| x |\n|---|\n| 1 |", "```\n<b>\n```", "> *q* `c` [l](u)", "1. a\n\n   b\n2. c", "    code\n\ntext **b**"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkMarkup(t, s, Markdown(s, 1))
	})
}
