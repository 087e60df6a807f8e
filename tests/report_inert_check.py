# SPDX-License-Identifier: MIT
# report_inert_check.py html|markdown FILE FIELD... - run by tests/cli_report_inert.sh on a report
# made from the lines tests/report_hostile.py rewrote.  Exit 0 when FILE shows every FIELD's
# hostile string as text and none of it as markup; else one line per problem on stderr, exit 1.
#   html: parsed, every tag is the page's own or an SVG plot's, no event handler, no javascript:
#         link, no comment, no raw <script in the source; "{FIELD}" and the payload's
#         <script>alert(1)</script> are in the text a browser shows.
#   markdown: "{FIELD}" present; no line starts with what the payload puts after a newline (so no
#         value broke its line); outside backslash escapes no <, no &, no ` (but the report's own
#         `ctrbench compare`), no ]( (a link); every table row has its header's number of cells.
import html.parser
import re
import sys

mode, path, fields = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(path, encoding="utf-8").read()
errors = []

PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3", "h4", "p",
             "code", "ul", "ol", "li", "span", "section", "dl", "dt", "dd", "nav", "strong", "a",
             "figure", "figcaption", "div", "table", "caption", "thead", "tbody", "tr", "th", "td",
             "footer"}
SVG_TAGS = {"svg", "g", "title", "desc", "defs", "path", "text", "tspan", "rect", "circle",
            "ellipse", "line", "polyline", "polygon", "use", "clippath", "lineargradient",
            "radialgradient", "stop", "symbol", "marker", "pattern", "image", "filter", "feflood",
            "fecomposite", "feoffset", "fegaussianblur", "femerge", "femergenode"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.data = []

    def handle_starttag(self, tag, attrs):
        if tag not in PAGE_TAGS | SVG_TAGS:
            errors.append("a <%s> element in the page" % tag)
        for k, v in attrs:
            if k.lower().startswith("on"):
                errors.append("an event handler %s= on <%s>" % (k, tag))
            if k.lower().endswith("href") and (v or "").strip().lower().startswith("javascript"):
                errors.append("a javascript: link on <%s>" % tag)

    def handle_comment(self, data):
        errors.append("a comment in the page: <!--%s-->" % data[:30])

    def handle_data(self, d):
        self.data.append(d)


def unescaped(s, ch):
    """Occurrences of ch in s not preceded by an odd number of backslashes."""
    return [m.start() for m in re.finditer(r"(?<!\\)(?:\\\\)*" + re.escape(ch), s)]


if mode == "html":
    p = Page()
    p.feed(text)
    p.close()
    shown = "".join(p.data)
    if re.search(r"<script", text, re.I):
        errors.append("a raw <script in the page source")
    if "<script>alert(1)</script>" not in shown:
        errors.append("the payload's <script> is not shown as text")
    for f in fields:
        if "{%s}" % f not in shown:
            errors.append("field %s is not shown on the page" % f)
else:
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if re.match(r"(EOD|system|print system|\$d <<|' '')", line):
            errors.append("line %d starts with a value's continuation: %r" % (n, line[:60]))
        body = line.replace("`ctrbench compare`", "")
        for ch in ("<", "&", "`", "]("):
            if unescaped(body, ch):
                errors.append("line %d has an unescaped %s: %r" % (n, ch, line[:80]))
    # tables: a header row, a |---| row, rows; each row the header's number of cells
    for n, line in enumerate(lines):
        if line.startswith("|") and n + 1 < len(lines) and re.match(r"\|[-:|]+\|$", lines[n + 1]):
            want = len(unescaped(line, "|"))
            k = n + 2
            while k < len(lines) and lines[k].startswith("|"):
                if len(unescaped(lines[k], "|")) != want:
                    errors.append("table row %d has %d cells, its header %d" % (
                        k + 1, len(unescaped(lines[k], "|")) - 1, want - 1))
                k += 1
    for f in fields:
        if "{%s}" % f not in text:
            errors.append("field %s is not in the markdown" % f)
for e in sorted(set(errors))[:20]:
    print(e, file=sys.stderr)
sys.exit(1 if errors else 0)
