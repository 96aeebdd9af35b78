#!/usr/bin/env python3
"""CTest check: the performance pages keep their shape, and the links between pages resolve.

    performance_pages.py --source SOURCE_DIR
    performance_pages.py --self-test      # the check on a small tree, and on each fault it must refuse

docs/performance/<subsystem>.md is one short page per subsystem holding one table of current
figures, whose columns are FIGURE_COLUMNS. Every row's command cell links to one or more commands
of the page (`[C1](#c1)`), each a heading `### C1` followed by a fenced block that is the command as
run. docs/PERFORMANCE.md is an index: one table, INDEX_COLUMNS, one row per page, whose headline
figure and value are a row of that page's table word for word (so the index cannot keep a figure
the page has replaced). History lives in git and docs/CHANGELOG.md, analysis on the protocols'
pages: a page's prose is a few lines (PROSE_LINES), the index is at most INDEX_LINES long.

It fails on: a row without a command, a command link to no command, a command no row uses, an
empty cell, a second table, a page the index does not list, an index row naming a missing page or a
figure its page does not have, and any relative link in README.md or docs/ (a page, or a page and
an anchor) that leads nowhere.
"""
import argparse
import os
import re
import sys
import unicodedata

FIGURE_COLUMNS = ["figure", "value", "same-run baseline", "target", "command", "machine, date"]
INDEX_COLUMNS = ["subsystem", "headline figure", "value", "target", "page"]
PROSE_LINES = 12
INDEX_LINES = 60

COMMAND_LINK = re.compile(r"\[(C\d+)\]\(#(c\d+)\)")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def cells(line):
    """The cells of a table row, stripped; `\\|` inside a cell is not a separator."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def split_page(text):
    """(tables, headings, fenced blocks, prose lines) of a page, fences respected. A table is
    (line number, header cells, [(line number, row cells)])."""
    tables, headings, blocks, prose = [], [], [], []
    lines = text.split("\n")
    fence, block, table = None, None, None
    for number, line in enumerate(lines, 1):
        if fence is not None:
            if line.startswith(fence):
                blocks.append(block)
                fence = None
            else:
                block[1].append(line)
            continue
        if line.startswith("```"):
            fence, block = "```", (number, [])
            table = None
            continue
        if line.lstrip().startswith("|"):
            if table is None:
                table = (number, cells(line), [])
                tables.append(table)
            elif not re.fullmatch(r"[\s|:-]+", line):
                table[2].append((number, cells(line)))
            continue
        table = None
        if line.startswith("#"):
            headings.append((number, line.lstrip("#").strip()))
        elif line.strip() and not line.strip().startswith("<!--"):
            prose.append(number)
    return tables, headings, blocks, prose


def slug(heading, seen):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, a
    repeated anchor numbered."""
    text = re.sub(r"<[^>]+>", "", heading).lower()
    text = "".join(ch for ch in text
                   if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    text = text.replace(" ", "-")
    count = seen.get(text, 0)
    seen[text] = count + 1
    return text if count == 0 else f"{text}-{count}"


def anchors(text):
    seen = {}
    found = {slug(h, seen) for _, h in split_page(text)[1]}
    found.update(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", text))
    return found


def check_page(path, errors):
    """The figures table of one page: {figure: value}."""
    name = os.path.join("docs", "performance", os.path.basename(path))
    text = open(path, encoding="utf-8").read()
    tables, headings, blocks, prose = split_page(text)
    if len(tables) != 1:
        errors.append(f"{name}: {len(tables)} tables; a performance page has exactly one")
        if not tables:
            return {}
    line, header, rows = tables[0]
    if header != FIGURE_COLUMNS:
        errors.append(f"{name}:{line}: the table's columns are {header}; expected {FIGURE_COLUMNS}")
        return {}
    if not rows:
        errors.append(f"{name}:{line}: the table has no rows")
    commands = {}
    for number, heading in headings:
        match = re.fullmatch(r"C(\d+)", heading)
        if match:
            after = [b for b in blocks if b[0] > number]
            if not after or not any(l.strip() for l in after[0][1]) or \
                    any(n for n, _ in headings if number < n < after[0][0]):
                errors.append(f"{name}:{number}: command {heading} has no fenced block under it")
            commands[heading.lower()] = number
    used, figures = set(), {}
    for number, row in rows:
        if len(row) != len(FIGURE_COLUMNS):
            errors.append(f"{name}:{number}: {len(row)} cells; the table has {len(FIGURE_COLUMNS)}")
            continue
        for column, cell in zip(FIGURE_COLUMNS, row):
            if not cell:
                errors.append(f"{name}:{number}: the cell '{column}' is empty")
        links = COMMAND_LINK.findall(row[4])
        rest = re.sub(r"[\s,;]+|\band\b", "", COMMAND_LINK.sub("", row[4]))
        if not links or rest:
            errors.append(f"{name}:{number}: the command cell '{row[4]}' must link to the page's "
                          "commands only, as [C1](#c1)")
        for label, anchor in links:
            if label.lower() != anchor or anchor not in commands:
                errors.append(f"{name}:{number}: the command link [{label}](#{anchor}) leads to no "
                              f"'### {label}' with its command")
            used.add(anchor)
        if row[0] in figures:
            errors.append(f"{name}:{number}: the figure '{row[0]}' is in the table twice")
        figures[row[0]] = row[1]
    for anchor, number in commands.items():
        if anchor not in used:
            errors.append(f"{name}:{number}: command {anchor.upper()} is used by no row")
    if len(prose) > PROSE_LINES:
        errors.append(f"{name}: {len(prose)} lines of prose (at most {PROSE_LINES}); analysis goes "
                      "to the protocol's page, history to git and CHANGELOG.md")
    return figures


def check_index(docs, pages, errors):
    path = os.path.join(docs, "PERFORMANCE.md")
    text = open(path, encoding="utf-8").read()
    if text.count("\n") > INDEX_LINES:
        errors.append(f"docs/PERFORMANCE.md: {text.count(chr(10))} lines; the index is at most "
                      f"{INDEX_LINES} (figures go to the subsystem's page)")
    tables = split_page(text)[0]
    if len(tables) != 1 or tables[0][1] != INDEX_COLUMNS:
        errors.append(f"docs/PERFORMANCE.md: one table with the columns {INDEX_COLUMNS} expected")
        return
    listed = {}
    for number, row in tables[0][2]:
        if len(row) != len(INDEX_COLUMNS):
            errors.append(f"docs/PERFORMANCE.md:{number}: {len(row)} cells; the index has "
                          f"{len(INDEX_COLUMNS)}")
            continue
        match = re.fullmatch(r"\[[^\]]+\]\(performance/([a-z0-9-]+\.md)\)", row[4])
        if not match:
            errors.append(f"docs/PERFORMANCE.md:{number}: the page cell '{row[4]}' is not a link "
                          "to performance/<page>.md")
            continue
        page = match.group(1)
        if page in listed:
            errors.append(f"docs/PERFORMANCE.md:{number}: {page} is listed twice")
        listed[page] = number
        if page not in pages:
            errors.append(f"docs/PERFORMANCE.md:{number}: links to performance/{page}, which does "
                          "not exist")
            continue
        figure, value = row[1], row[2]
        if pages[page].get(figure) != value:
            errors.append(f"docs/PERFORMANCE.md:{number}: the headline '{figure}' = '{value}' is not "
                          f"a row of performance/{page} (the page says "
                          f"{pages[page].get(figure, 'nothing of that figure')!r})")
    for page in pages:
        if page not in listed:
            errors.append(f"docs/performance/{page}: not listed in docs/PERFORMANCE.md's index")


def check_links(source, errors):
    """Every relative link of README.md and docs/ to a page (and an anchor) resolves."""
    files = [os.path.join(source, "README.md")]
    for folder, _, names in os.walk(os.path.join(source, "docs")):
        files += [os.path.join(folder, n) for n in names if n.endswith(".md")]
    cache = {}
    for path in sorted(files):
        text = open(path, encoding="utf-8").read()
        text_outside_code = re.sub(r"```.*?```", "", text, flags=re.S)
        text_outside_code = re.sub(r"`[^`\n]*`", "", text_outside_code)
        for target in LINK.findall(text_outside_code):
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            where = os.path.relpath(path, source)
            if not os.path.exists(resolved):
                errors.append(f"{where}: the link ({target}) leads to no file")
                continue
            if anchor and resolved.endswith(".md"):
                if resolved not in cache:
                    cache[resolved] = anchors(open(resolved, encoding="utf-8").read())
                if anchor not in cache[resolved]:
                    errors.append(f"{where}: the link ({target}) leads to no heading of "
                                  f"{os.path.relpath(resolved, source)}")


def problems(source):
    """Every problem of the tree at `source`, and how many pages and figures it has."""
    docs = os.path.join(source, "docs")
    errors, pages = [], {}
    folder = os.path.join(docs, "performance")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if name.endswith(".md"):
            pages[name] = check_page(os.path.join(folder, name), errors)
    if not pages:
        errors.append("docs/performance/: no pages")
    check_index(docs, pages, errors)
    check_links(source, errors)
    return errors, len(pages), sum(len(p) for p in pages.values())


GOOD_PAGE = """# Performance: a subsystem

One line of what it measures.

| figure | value | same-run baseline | target | command | machine, date |
|---|---|---|---|---|---|
| a round, 10 parties | 1.0 s | the bare shuffle 0.5 s | ≤ 3x: met | [C1](#c1) | 2-core VM, idle, 2026-11-30 |
| a second figure | 2.0 s | memcpy 0.1 s | none set | [C1](#c1), [C2](#c2) | 2-core VM, idle, 2026-11-30 |

### C1

```
build/bin/bench/bench_x 10
```

### C2

```
build/bin/bench/bench_y
```
"""
GOOD_INDEX = """# performance

## The machine

| subsystem | headline figure | value | target | page |
|---|---|---|---|---|
| x | a round, 10 parties | 1.0 s | ≤ 3x: met | [x](performance/x.md) |
"""
GOOD_README = "[the index](docs/PERFORMANCE.md#the-machine)\n"

# (what is broken, the file changed, (old, new) or its new text, words the problem must say)
FAULTS = [
    ("a row without a command", "docs/performance/x.md",
     ("| [C1](#c1) | 2-core VM, idle, 2026-11-30 |\n| a second", "|  | 2-core VM, idle, 2026-11-30 |\n| a second"),
     "the cell 'command' is empty"),
    ("a command cell that is text", "docs/performance/x.md",
     ("[C1](#c1), [C2](#c2)", "bench_y"), "must link to the page's commands only"),
    ("a command link to no command", "docs/performance/x.md", ("[C2](#c2) |", "[C3](#c3) |"),
     "leads to no '### C3'"),
    ("a command no row uses", "docs/performance/x.md", ("[C1](#c1), [C2](#c2)", "[C1](#c1)"),
     "command C2 is used by no row"),
    ("a command heading with no block", "docs/performance/x.md",
     ("### C2\n\n```\nbuild/bin/bench/bench_y\n```\n", "### C2\n"), "has no fenced block"),
    ("an empty value", "docs/performance/x.md", ("| 2.0 s |", "|  |"), "the cell 'value' is empty"),
    ("a second table", "docs/performance/x.md", None, "2 tables"),
    ("a page that grows prose", "docs/performance/x.md",
     ("One line of what it measures.\n", "A line.\n" * 20), "lines of prose"),
    ("a column missing", "docs/performance/x.md", ("| target | command |", "| command |"),
     "the table's columns are"),
    ("a page the index leaves out", "docs/performance/y.md", GOOD_PAGE, "not listed in docs/PERFORMANCE.md"),
    ("an index row to a missing page", "docs/PERFORMANCE.md",
     ("(performance/x.md)", "(performance/z.md)"), "which does not exist"),
    ("a headline its page replaced", "docs/PERFORMANCE.md", ("| 1.0 s |", "| 0.9 s |"),
     "is not a row of performance/x.md"),
    ("an index grown into a diary", "docs/PERFORMANCE.md", ("## The machine\n", "a line\n" * 70),
     "the index is at most"),
    ("a link to a heading that is gone", "README.md", ("#the-machine", "#the-cpu"),
     "leads to no heading"),
    ("a link to a page that is gone", "README.md", ("docs/PERFORMANCE.md", "docs/PERF.md"),
     "leads to no file"),
]


def self_test():
    """The check on a small good tree passes, and on each of FAULTS fails with its words."""
    import tempfile
    failed = 0
    for fault in [None] + FAULTS:
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "docs", "performance"))
            files = {"docs/performance/x.md": GOOD_PAGE, "docs/PERFORMANCE.md": GOOD_INDEX,
                     "README.md": GOOD_README}
            if fault:
                name, path, change, words = fault
                if change is None:
                    files[path] += "\n" + GOOD_PAGE[GOOD_PAGE.index("| figure"):GOOD_PAGE.index("### C1")]
                elif isinstance(change, str):
                    files[path] = change
                else:
                    assert change[0] in files[path], f"{name}: the fault's text is not in the good file"
                    files[path] = files[path].replace(change[0], change[1], 1)
            for path, text in files.items():
                with open(os.path.join(root, path), "w", encoding="utf-8") as out:
                    out.write(text)
            errors = problems(root)[0]
            if fault is None:
                ok = not errors
                print(f"{'ok' if ok else 'FAILED'}  the good tree passes" + ("" if ok else f": {errors}"))
            else:
                ok = any(words in e for e in errors)
                print(f"{'ok' if ok else 'FAILED'}  {name} is refused" + ("" if ok else f": {errors}"))
            failed += not ok
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source")
    parser.add_argument("--self-test", action="store_true",
                        help="run the check on a small tree and on each of its faults")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.source:
        parser.error("--source is required")
    errors, pages, figures = problems(args.source)
    for error in errors:
        print(error)
    print(f"{pages} performance pages, {figures} figures; {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
