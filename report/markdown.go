package report

import (
	"html"
	"strconv"
	"strings"
)

// Markdown renders the subset of Markdown that the FINDINGS.md files use
// as HTML: ATX headings (#…######, shifted down by shift levels so that a
// document's "#" sits under the report's own headings), paragraphs,
// bulleted and numbered lists nested by indentation, fenced and indented
// code blocks, pipe tables, block quotes, and inline code, **strong**,
// *emphasis*, _emphasis_ and [links](url). Everything else is text, and
// all text is escaped: the output carries no markup that the input did not
// ask for through this subset, and no raw HTML passes through.
func Markdown(src string, shift int) string {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var b strings.Builder
	renderBlocks(&b, lines, shift)
	return b.String()
}

var (
	headingRe = lazyRegexp(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	bulletRe  = lazyRegexp(`^(\s*)([-*+])\s+`)
	orderedRe = lazyRegexp(`^(\s*)(\d{1,9})[.)]\s+`)
	fenceRe   = lazyRegexp("^\\s*(```|~~~)")
	ruleRe    = lazyRegexp(`^\s*([-*_])(\s*[-*_]){2,}\s*$`)
	tableSep  = lazyRegexp(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
)

func indentOf(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// dedent removes up to n columns of leading spaces from each line.
func dedent(lines []string, n int) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		k := 0
		for k < len(l) && k < n && l[k] == ' ' {
			k++
		}
		out[i] = l[k:]
	}
	return out
}

// renderBlocks renders a sequence of block-level lines.
func renderBlocks(b *strings.Builder, lines []string, shift int) {
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case blank(l):
			i++
		case fenceRe().MatchString(l):
			i = renderFence(b, lines, i)
		case indentOf(l) >= 4:
			i = renderIndentedCode(b, lines, i)
		case headingRe().MatchString(l):
			m := headingRe().FindStringSubmatch(l)
			lvl := min(len(m[1])+shift, 6)
			b.WriteString("<h" + itoa(lvl) + ">" + Inline(m[2]) + "</h" + itoa(lvl) + ">\n")
			i++
		case ruleRe().MatchString(l):
			b.WriteString("<hr>\n")
			i++
		case bulletRe().MatchString(l) || orderedRe().MatchString(l):
			i = renderList(b, lines, i, shift)
		case strings.HasPrefix(strings.TrimSpace(l), ">"):
			i = renderQuote(b, lines, i, shift)
		case strings.Contains(l, "|") && i+1 < len(lines) && tableSep().MatchString(lines[i+1]) && strings.Contains(lines[i+1], "-"):
			i = renderTable(b, lines, i)
		default:
			i = renderParagraph(b, lines, i)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func renderFence(b *strings.Builder, lines []string, i int) int {
	ind := indentOf(lines[i])
	fence := fenceRe().FindStringSubmatch(lines[i])[1]
	j := i + 1
	var code []string
	for ; j < len(lines); j++ {
		if strings.HasPrefix(strings.TrimSpace(lines[j]), fence) {
			j++
			break
		}
		code = append(code, lines[j])
	}
	b.WriteString("<pre><code>" + html.EscapeString(strings.Join(dedent(code, ind), "\n")) + "</code></pre>\n")
	return j
}

func renderIndentedCode(b *strings.Builder, lines []string, i int) int {
	j := i
	for j < len(lines) && (indentOf(lines[j]) >= 4 || blank(lines[j])) {
		j++
	}
	for j > i && blank(lines[j-1]) {
		j--
	}
	b.WriteString("<pre><code>" + html.EscapeString(strings.Join(dedent(lines[i:j], 4), "\n")) + "</code></pre>\n")
	return j
}

// startsBlock reports whether l interrupts a paragraph.
func startsBlock(l string) bool {
	return headingRe().MatchString(l) || fenceRe().MatchString(l) || bulletRe().MatchString(l) ||
		orderedRe().MatchString(l) || strings.HasPrefix(strings.TrimSpace(l), ">")
}

func renderParagraph(b *strings.Builder, lines []string, i int) int {
	j := i + 1
	for j < len(lines) && !blank(lines[j]) && !startsBlock(lines[j]) {
		j++
	}
	parts := make([]string, j-i)
	for k := i; k < j; k++ {
		parts[k-i] = strings.TrimSpace(lines[k])
	}
	b.WriteString("<p>" + Inline(strings.Join(parts, "\n")) + "</p>\n")
	return j
}

func renderQuote(b *strings.Builder, lines []string, i int, shift int) int {
	var inner []string
	j := i
	for ; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), ">"); j++ {
		s := strings.TrimPrefix(strings.TrimSpace(lines[j]), ">")
		inner = append(inner, strings.TrimPrefix(s, " "))
	}
	b.WriteString("<blockquote>\n")
	renderBlocks(b, inner, shift)
	b.WriteString("</blockquote>\n")
	return j
}

// renderList renders the list starting at lines[i]; an item's content is
// its first line and every following line indented past the marker's
// column (blank lines included), rendered recursively, so that nested
// lists, tables and code blocks inside items keep their structure.
func renderList(b *strings.Builder, lines []string, i int, shift int) int {
	ordered := orderedRe().MatchString(lines[i]) && !bulletRe().MatchString(lines[i])
	base := indentOf(lines[i])
	tag := "ul"
	if ordered {
		tag = "ol"
		if n := orderedRe().FindStringSubmatch(lines[i])[2]; n != "1" {
			b.WriteString(`<ol start="` + html.EscapeString(strings.TrimLeft(n, "0")) + `">` + "\n")
		} else {
			b.WriteString("<ol>\n")
		}
	} else {
		b.WriteString("<ul>\n")
	}
	re := bulletRe()
	if ordered {
		re = orderedRe()
	}
	j := i
	for j < len(lines) {
		m := re.FindStringSubmatchIndex(lines[j])
		if m == nil || indentOf(lines[j]) != base {
			break
		}
		content := m[1] // column where the item's text starts
		item := []string{lines[j][content:]}
		j++
		for j < len(lines) {
			l := lines[j]
			if blank(l) {
				// a blank line continues the item only if indented text follows
				k := j
				for k < len(lines) && blank(lines[k]) {
					k++
				}
				if k < len(lines) && indentOf(lines[k]) > base {
					item = append(item, lines[j:k]...)
					j = k
					continue
				}
				break
			}
			if indentOf(l) <= base && (startsBlock(l) || indentOf(l) < base) {
				break
			}
			item = append(item, dedent([]string{l}, content)[0])
			j++
		}
		b.WriteString("<li>")
		renderItem(b, item, shift)
		b.WriteString("</li>\n")
		// skip blank lines between items of the same list
		k := j
		for k < len(lines) && blank(lines[k]) {
			k++
		}
		if k < len(lines) && k > j && re.MatchString(lines[k]) && indentOf(lines[k]) == base {
			j = k
		}
	}
	b.WriteString("</" + tag + ">\n")
	return j
}

// renderItem renders a list item: a tight item (one paragraph) without
// its <p>, anything else as blocks.
func renderItem(b *strings.Builder, item []string, shift int) {
	var inner strings.Builder
	renderBlocks(&inner, item, shift)
	s := inner.String()
	if strings.HasPrefix(s, "<p>") && strings.Count(s, "<p>") == 1 {
		s = strings.Replace(s, "<p>", "", 1)
		s = strings.Replace(s, "</p>\n", "\n", 1)
	}
	b.WriteString(strings.TrimSuffix(s, "\n"))
}

func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	l = strings.TrimSuffix(l, "|")
	cells := strings.Split(l, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func renderTable(b *strings.Builder, lines []string, i int) int {
	head := splitRow(lines[i])
	aligns := splitRow(lines[i+1])
	align := func(k int) string {
		if k >= len(aligns) {
			return ""
		}
		a := aligns[k]
		switch {
		case strings.HasPrefix(a, ":") && strings.HasSuffix(a, ":"):
			return ` style="text-align:center"`
		case strings.HasSuffix(a, ":"):
			return ` style="text-align:right"`
		}
		return ""
	}
	b.WriteString("<table>\n<thead><tr>")
	for k, c := range head {
		b.WriteString("<th" + align(k) + ">" + Inline(c) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	j := i + 2
	for ; j < len(lines) && strings.Contains(lines[j], "|") && !blank(lines[j]); j++ {
		b.WriteString("<tr>")
		for k, c := range splitRow(lines[j]) {
			b.WriteString("<td" + align(k) + ">" + Inline(c) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	return j
}

var (
	codeSpan = lazyRegexp("`([^`]+)`")
	strongRe = lazyRegexp(`\*\*([^*\s<>](?:[^*<>]*[^*\s<>])?)\*\*`)
	emStarRe = lazyRegexp(`(^|[^*\w])\*([^*\s<>](?:[^*<>]*[^*\s<>])?)\*`)
	emUndRe  = lazyRegexp(`(^|[^\w])_([^_\s<>](?:[^_<>]*[^_\s<>])?)_([^\w]|$)`)
	linkRe   = lazyRegexp(`\[([^\]]+)\]\(([^)\s]+)\)`)
)

// Inline renders one paragraph's inline markup. Code spans, then links
// (their text rendered on its own), are set aside as atoms first, so that
// nothing inside a code span is interpreted and no emphasis straddles a
// link; emphasis never spans a tag, so the tags always nest.
func Inline(s string) string {
	s = strings.ReplaceAll(s, "\x00", "")
	var atoms []string
	atom := func(html string) string {
		atoms = append(atoms, html)
		return "\x00" + itoa(len(atoms)-1) + "\x00"
	}
	s = codeSpan().ReplaceAllStringFunc(s, func(m string) string {
		return atom("<code>" + html.EscapeString(m[1:len(m)-1]) + "</code>")
	})
	s = linkRe().ReplaceAllStringFunc(s, func(m string) string {
		sm := linkRe().FindStringSubmatch(m)
		text := emphasis(html.EscapeString(sm[1]))
		if l := strings.ToLower(sm[2]); strings.HasPrefix(l, "javascript:") || strings.HasPrefix(l, "data:") || strings.HasPrefix(l, "vbscript:") {
			return atom(text)
		}
		return atom(`<a href="` + html.EscapeString(sm[2]) + `">` + text + `</a>`)
	})
	s = emphasis(html.EscapeString(s))
	for i := len(atoms) - 1; i >= 0; i-- { // atoms may hold earlier atoms
		s = strings.Replace(s, "\x00"+itoa(i)+"\x00", atoms[i], 1)
	}
	return s
}

func emphasis(s string) string {
	s = strongRe().ReplaceAllString(s, "<strong>$1</strong>")
	s = emStarRe().ReplaceAllString(s, "$1<em>$2</em>")
	return emUndRe().ReplaceAllString(s, "$1<em>$2</em>$3")
}
