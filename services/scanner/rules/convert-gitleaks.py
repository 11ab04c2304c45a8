#!/usr/bin/env python3
"""Convert gitleaks' default rules into cairn-scanner rules (services/scanner/rules/secrets.toml).

Usage: convert-gitleaks.py path/to/gitleaks.toml [out.toml]

gitleaks (https://github.com/gitleaks/gitleaks) is MIT-licensed, Copyright (c) 2019 Zachary
Rice. This script reads its configuration and writes our own rule format; it never copies
the file as is.

What it does, per gitleaks rule:
  * parses the Go RE2 pattern into a small syntax tree and writes it back in Rust `regex`
    syntax. Perl classes and word boundaries are made ASCII-only (`\\w` -> `[0-9A-Z_a-z]`,
    `\\b` -> `(?-u:\\b)`), as they are in Go: Rust's are Unicode-aware, which makes the
    compiled patterns far bigger and stops the lazy DFA on non-ASCII text;
  * picks the secret group the way gitleaks does (`secretGroup`, else the first capture
    group, else the whole match, which is then wrapped in a group so it is masked);
  * synthesizes a matching example with a fake secret (a pseudo-random generator seeded by
    the rule id) and counter-examples with placeholders, and checks both against a
    simulation of the scanner (keywords, pattern, entropy of the secret group). Rules
    without a working example are skipped and listed at the top of the output.

Python 3.11+, standard library only.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

COPYRIGHT = "Copyright (c) 2019 Zachary Rice"

# gitleaks' licence, reproduced in the output as the MIT licence requires.
LICENSE = """MIT License

Copyright (c) 2019 Zachary Rice

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE."""

# ---------------------------------------------------------------------------------------
# Per-rule decisions that cannot be derived from the pattern.

# Rules not converted, with the reason (listed in the output).
SKIP = {
    "kubernetes-secret-yaml": "multi-line pattern over a whole YAML document and a path filter "
    "(*.yaml); the scanner matches one line at a time and has no path filters",
    "pkcs12-file": "path-only rule (*.p12/*.pfx), no content pattern; binary files are the "
    "content checks' business",
    "hashicorp-tf-password": "only meaningful with gitleaks' path filter (*.tf, *.hcl); without "
    'it, any `password = "..."` matches (secret.generic-api-key covers real ones)',
}

# Patterns rewritten by hand (Go syntax, converted like the others).
OVERRIDE_PATTERN = {
    # gitleaks' version spreads the secret over 8 alternative capture groups (it takes the
    # first non-empty one); ours has one fixed group, so the header forms share one group.
    # Multi-line continuations are dropped (we match line by line).
    # The secret must hold a digit: placeholders such as `Token: YOUR_TOKEN` (5 in the
    # curated skills) do not, real tokens nearly always do.
    "curl-auth-header": r"""\bcurl\b.*?[ \t](?:-H|--header)(?:=|[ \t]{0,5})["'](?i:Authorization:[ \t]{0,5}(?:(?:Basic|Bearer|(?:Api-)?Token)[ \t])?|(?:X-(?:[a-z]+-)?)?(?:Api-?)?(?:Key|Token):[ \t]{0,5})([\w=~@.+/-]*\d[\w=~@.+/-]*)["'](?:\B|\s|\z)""",
    # gitleaks' generic rule depends on its allowlists (1446 stopwords; values without a
    # digit; key names such as `public_key`), which the scanner cannot express: on the
    # curated skills the plain pattern flagged 162 identifiers and placeholders. Here the
    # value must hold a digit (gitleaks' `^[a-zA-Z_.-]+$` allowlist, written into the
    # pattern), and the entropy floor is raised (below). The lower length bound (10) is
    # implied by the entropy floor; the upper one (150) is dropped.
    "generic-api-key": r"""(?i)(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]*\d[\w.=-]*|[a-z0-9][a-z0-9+/]*\d[a-z0-9+/]*={0,3})(?:[\x60'"\s;]|\\[nr]|$)""",
    # Multi-line continuations dropped (we match line by line). gitleaks' allowlist for
    # variables and placeholders (`"$USER:$PASS"`, `<user>:<password>`) is written into
    # the pattern: no `$`, `<` or `>` in the credentials (32 false positives in the wild
    # skills otherwise).
    "curl-auth-user": r"""\bcurl\b.*[ \t](?:-u|--user)(?:=|[ \t]{0,5})("(:[^"$<>]{3,}|[^:"$<>]{3,}:|[^:"$<>]{3,}:[^"$<>]{3,})"|'([^:'$<>]{3,}:[^'$<>]{3,})'|((?:"[^"$<>]{3,}"|'[^'$<>]{3,}'|[\w@.-]+):(?:"[^"$<>]{3,}"|'[^'$<>]{3,}'|[\w@.-]+)))(?:\s|\z)""",
}

# Examples written by hand where the synthesized ones would be unreadable. `{A20}` is 20
# pseudo-random letters and digits, `{H40}` 40 hex digits, `{B64}` 64 base64 characters.
HAND_EXAMPLES = {
    "generic-api-key": (
        ['api_key = "{A32}"', "DB_PASSWORD={A24}", 'auth_token: "{B40}"'],
        ['api_key = "${API_KEY}"', "max_tokens=1024", 'authorization_token: "ghp_your_github_token"',
         'tokenizer_file="my-tokenizer.json"'],
    ),
    "curl-auth-header": (
        ['curl -H "Authorization: Bearer {A40}" https://api.example.com/v1/items',
         "curl --header 'X-Api-Key: {H32}' https://api.example.com/v1/items"],
        ['curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com/v1/items',
         'curl -H "Token: YOUR_TOKEN" https://api.example.com/v1/items'],
    ),
    "curl-auth-user": (
        ["curl -u deploy:{A16} https://ci.example.com/api/json", 'curl --user "admin:{A12}" https://ci.example.com/'],
        ["curl -u <user>:<password> https://ci.example.com/api/json", "curl -u deploy https://ci.example.com/api/json",
         'curl -u "$JENKINS_USER:$JENKINS_TOKEN" "$JENKINS_URL/api/json"', 'curl --user "${API_USER}:${API_PASS}" --digest \\'],
    ),
    "private-key": (
        ['"key": "-----BEGIN RSA PRIVATE KEY-----\\n{B64}\\n{B64}\\n-----END RSA PRIVATE KEY-----\\n"'],
        ["-----BEGIN PRIVATE KEY-----", "Paste the -----BEGIN OPENSSH PRIVATE KEY----- block into the secret store."],
    ),
    "jwt": (
        ["Authorization: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{A40}.{A43}"],
        ["Authorization: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.<payload>.<signature>", "token: ${JWT}"],
    ),
}


def fill(template: str, rng: random.Random) -> str:
    sets = {"A": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "H": "0123456789abcdef", "B": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"}
    return re.sub(r"\{([AHB])(\d+)\}", lambda m: "".join(rng.choice(sets[m.group(1)]) for _ in range(int(m.group(2)))),
                  template)


def hand_examples(conv):
    if conv.rid not in HAND_EXAMPLES:
        return None
    rng = random.Random(seed(conv.rid, 0))
    matches, ignores = HAND_EXAMPLES[conv.rid]
    matches = [fill(m, rng) for m in matches]
    for line in matches:
        if not conv.fires(line):
            raise SystemExit(f"{conv.rid}: hand-written example does not match: {line}")
    for line in ignores:
        if conv.fires(line):
            raise SystemExit(f"{conv.rid}: hand-written counter-example matches: {line}")
    return matches, ignores


# Entropy floors raised over gitleaks' (false positives on the curated skills). For the
# generic rule, 4.2 bits still flags a random key of 24+ letters and digits, but not
# identifiers such as `OmniRtxSettingsPtAdvancedAPI_1` (4.15) or fake keys such as
# `sk-testsecret12345678901234567890` (4.01) found in curated skills.
ENTROPY = {"generic-api-key": 4.2, "curl-auth-header": 3.0}

# Rules whose capture groups are not the secret (gitleaks would report the first of them):
# made non-capturing, so the whole match is the secret.
UNCAPTURE = {"jwt-base64", "microsoft-teams-webhook"}

# Rules whose top-level alternatives hold the secret in different groups: one rule each.
SPLIT_NAMES = {"atlassian-api-token": ["atlassian-api-token", "atlassian-api-token-atatt3"]}

# Severity `medium` (low confidence: a keyword near a random-looking string).
MEDIUM = {"generic-api-key"}

# Notes written next to a rule.
NOTES = {
    "private-key": "matches a whole key on one line (e.g. inside JSON with \\n escapes); "
    "a multi-line PEM block is not seen (line-by-line matching)",
    "freemius-secret-key": "gitleaks limits this rule to *.php; the pattern is specific enough without",
    "nuget-config-password": "gitleaks limits this rule to nuget.config; the pattern is specific enough without",
    "aws-access-token": "gitleaks' allowlist (keys ending in EXAMPLE, as in AWS' docs) is not expressible here",
    "generic-api-key": "gitleaks' allowlists (1446 stopwords, key-name exclusions) are not expressible here",
    "gcp-api-key": "gitleaks' allowlist of known public example keys is not expressible here",
    "vault-service-token": "gitleaks' allowlist (s. followed by letters only) is not expressible here",
}

HINT = "remove it, rotate it, and read it from an environment variable or secret store at run time"

# ---------------------------------------------------------------------------------------
# Go RE2 syntax tree.

ASCII = frozenset(range(128))
WORD = frozenset(map(ord, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"))
DIGIT = frozenset(map(ord, "0123456789"))
SPACE = frozenset(map(ord, "\t\n\f\r "))  # Go's \s
POSIX = {
    "alnum": frozenset(map(ord, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")),
    "alpha": frozenset(map(ord, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")),
    "digit": DIGIT,
    "lower": frozenset(map(ord, "abcdefghijklmnopqrstuvwxyz")),
    "upper": frozenset(map(ord, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")),
    "xdigit": frozenset(map(ord, "0123456789ABCDEFabcdef")),
    "space": frozenset(map(ord, "\t\n\v\f\r ")),
    "word": WORD,
}
PERL = {"d": DIGIT, "w": WORD, "s": SPACE}


class Unsupported(Exception):
    pass


@dataclass
class Node:
    kind: str  # lit class any assert group flags alt concat repeat
    ci: bool = False  # case-insensitive (lit, class)
    dotall: bool = False  # any
    char: str = ""  # lit
    chars: frozenset = frozenset()  # class: ASCII members
    nonascii: bool = False  # class: also every non-ASCII character
    what: str = ""  # assert: ^ $ b B A z ; flags: text like "i" or "-i"
    capture: bool = False  # group
    index: int = 0  # group: capture index
    name: str = ""  # group: capture name
    scoped: str = ""  # group: scoped flags, e.g. "?i:"
    children: list = field(default_factory=list)  # alt, concat, group (1), repeat (1)
    starts: list = field(default_factory=list)  # alt: flags at the start of each branch
    lo: int = 0
    hi: int | None = None
    lazy: bool = False
    src: str = ""  # the source text of this node


def apply_flags(flags: dict, spec: str) -> dict:
    out = dict(flags)
    on = True
    for c in spec:
        if c == "-":
            on = False
        elif c in "imsU":
            out[c] = on
        else:
            raise Unsupported(f"flag {c}")
    return out


class Parser:
    def __init__(self, src: str):
        self.s = src
        self.i = 0
        self.groups = 0

    def peek(self, k=0):
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def parse(self) -> Node:
        node, _ = self.alt({"i": False, "m": False, "s": False, "U": False})
        if self.i != len(self.s):
            raise Unsupported(f"unexpected {self.peek()!r} at {self.i}")
        return node

    def alt(self, flags):
        start = self.i
        branches, starts = [], []
        while True:
            starts.append(dict(flags))
            node, flags = self.concat(flags)
            branches.append(node)
            if self.peek() == "|":
                self.i += 1
                continue
            break
        if len(branches) == 1:
            return branches[0], flags
        return Node("alt", children=branches, starts=starts, src=self.s[start : self.i]), flags

    def concat(self, flags):
        start = self.i
        items = []
        while self.i < len(self.s) and self.peek() not in "|)":
            atom_start = self.i
            atom, flags = self.atom(flags)
            if atom.kind == "flags":
                items.append(atom)
                continue
            atom = self.quantifier(atom, flags)
            atom.src = atom.src or self.s[atom_start : self.i]
            items.append(atom)
        if len(items) == 1 and items[0].kind != "flags":
            return items[0], flags
        return Node("concat", children=items, src=self.s[start : self.i]), flags

    def quantifier(self, atom, flags):
        while True:
            start = self.i
            c = self.peek()
            if c and c in "*+?":
                self.i += 1
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            elif c == "{":
                m = re.match(r"\{(\d+)(,(\d*))?\}", self.s[self.i :])
                if not m:
                    return atom
                self.i += m.end()
                lo = int(m.group(1))
                hi = lo if m.group(2) is None else (int(m.group(3)) if m.group(3) else None)
            else:
                return atom
            lazy = False
            if self.peek() == "?":
                lazy = True
                self.i += 1
            if flags["U"]:
                lazy = not lazy
            atom = Node("repeat", children=[atom], lo=lo, hi=hi, lazy=lazy, src=atom.src + self.s[start : self.i])

    def atom(self, flags):
        start = self.i
        c = self.peek()
        if c == "(":
            self.i += 1
            capture, name, scoped = True, "", ""
            inner = flags
            if self.peek() == "?":
                m = re.match(r"\?(?:P?<(\w+)>|([imsU-]*)(:|\)))", self.s[self.i :])
                if not m:
                    raise Unsupported(f"group syntax at {self.i}")
                self.i += m.end()
                if m.group(1):
                    name = m.group(1)
                elif m.group(3) == ")":
                    new = apply_flags(flags, m.group(2))
                    return Node("flags", what=m.group(2), src=self.s[start : self.i]), new
                else:
                    capture = False
                    if m.group(2):
                        scoped = m.group(2)
                        inner = apply_flags(flags, scoped)
            index = 0
            if capture:
                self.groups += 1
                index = self.groups
            child, _ = self.alt(inner)
            if self.peek() != ")":
                raise Unsupported("missing )")
            self.i += 1
            return Node("group", capture=capture, index=index, name=name, scoped=scoped, children=[child],
                        src=self.s[start : self.i]), flags
        if c == "[":
            return self.cls(flags), flags
        if c == ".":
            self.i += 1
            return Node("any", dotall=flags["s"], src="."), flags
        if c in "^$":
            self.i += 1
            return Node("assert", what=c, src=c), flags
        if c == "\\":
            d = self.peek(1)
            if d and d in "bBAz":
                self.i += 2
                return Node("assert", what=d, src="\\" + d), flags
            if d and d.lower() in PERL:
                self.i += 2
                s = PERL[d.lower()]
                if d.isupper():
                    return Node("class", chars=ASCII - s, nonascii=True, src="\\" + d), flags
                return Node("class", chars=s, src="\\" + d), flags
            ch = self.escape_char()
            return Node("lit", char=ch, ci=flags["i"], src=self.s[start : self.i]), flags
        if c in "*+?{" and c != "{":
            raise Unsupported(f"dangling {c}")
        self.i += 1
        return Node("lit", char=c, ci=flags["i"], src=c), flags

    def escape_char(self) -> str:
        d = self.peek(1)
        if d == "x":
            m = re.match(r"\\x(?:([0-9a-fA-F]{2})|\{([0-9a-fA-F]+)\})", self.s[self.i :])
            if not m:
                raise Unsupported("bad \\x")
            self.i += m.end()
            return chr(int(m.group(1) or m.group(2), 16))
        simple = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "v": "\v", "a": "\a"}
        if d in simple:
            self.i += 2
            return simple[d]
        if d and not d.isalnum():
            self.i += 2
            return d
        raise Unsupported(f"escape \\{d}")

    def cls(self, flags):
        start = self.i
        self.i += 1
        negate = False
        if self.peek() == "^":
            negate = True
            self.i += 1
        chars: set = set()
        nonascii = False
        first = True
        while True:
            c = self.peek()
            if c == "":
                raise Unsupported("unterminated class")
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            m = re.match(r"\[:(\^?)(\w+):\]", self.s[self.i :])
            if m:
                if m.group(2) not in POSIX or m.group(1):
                    raise Unsupported(f"posix class {m.group(0)}")
                chars |= POSIX[m.group(2)]
                self.i += m.end()
                continue
            if c == "\\" and self.peek(1) and self.peek(1).lower() in PERL:
                s = PERL[self.peek(1).lower()]
                if self.peek(1).isupper():
                    chars |= ASCII - s
                    nonascii = True
                else:
                    chars |= s
                self.i += 2
                continue
            lo = self.class_char()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.i += 1
                hi = self.class_char()
                if ord(hi) < ord(lo):
                    raise Unsupported("bad range")
                chars |= set(range(ord(lo), ord(hi) + 1))
            else:
                chars.add(ord(lo))
        if any(c > 127 for c in chars):
            raise Unsupported("non-ASCII class member")
        if negate:
            chars = set(ASCII) - chars
            nonascii = not nonascii
        return Node("class", chars=frozenset(chars), nonascii=nonascii, ci=flags["i"], src=self.s[start : self.i])

    def class_char(self) -> str:
        c = self.peek()
        if c == "\\":
            return self.escape_char()
        self.i += 1
        return c


# ---------------------------------------------------------------------------------------
# Writing the tree back: Rust syntax (flags as written) and Python syntax (for checking
# the examples here; flags pushed down to each leaf).

RUST_META = set("\\.+*?()|[]{}^$")
CLASS_META = set("\\]]^-&~[")
NAMED_CHARS = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f", "\v": "\\v", "`": "\\x60"}


def char_out(c: str, in_class: bool) -> str:
    if c in NAMED_CHARS:
        return NAMED_CHARS[c]
    if ord(c) < 32 or ord(c) == 127:
        return f"\\x{ord(c):02X}"
    if c in (CLASS_META if in_class else RUST_META):
        return "\\" + c
    return c


def set_out(chars) -> str:
    """A class body: ranges of digits and letters, other characters one by one."""
    out = []
    for part in (DIGIT, POSIX["upper"], POSIX["lower"]):
        out.append(ranges_out(chars & part))
    return "".join(out) + "".join(char_out(chr(c), True) for c in sorted(chars - POSIX["alnum"]))


def ranges_out(chars) -> str:
    out = []
    cs = sorted(chars)
    i = 0
    while i < len(cs):
        j = i
        while j + 1 < len(cs) and cs[j + 1] == cs[j] + 1:
            j += 1
        a, b = chr(cs[i]), chr(cs[j])
        if j - i >= 2:
            out.append(char_out(a, True) + "-" + char_out(b, True))
        else:
            out.extend(char_out(chr(c), True) for c in cs[i : j + 1])
        i = j + 1
    return "".join(out)


def class_out(n: Node, dialect: str) -> str:
    if n.chars == WORD and not n.nonascii:
        body = "[0-9A-Z_a-z]"
    elif n.nonascii:
        rest = ASCII - n.chars
        body = "(?s:.)" if not rest else "[^" + set_out(rest) + "]"
    elif len(n.chars) == 1:
        body = char_out(chr(next(iter(n.chars))), False)
    else:
        body = "[" + set_out(n.chars) + "]"
    if dialect == "py" and n.ci and any(chr(c).isalpha() for c in n.chars):
        return "(?i:" + body + ")"
    return body


def emit(n: Node, dialect: str) -> str:
    k = n.kind
    if k == "lit":
        s = char_out(n.char, False)
        if dialect == "py" and n.ci and n.char.isalpha():
            return "(?i:" + s + ")"
        return s
    if k == "class":
        return class_out(n, dialect)
    if k == "any":
        if dialect == "py":
            return "(?s:.)" if n.dotall else "."
        return "."
    if k == "assert":
        if n.what in "bB":
            return "\\" + n.what if dialect == "py" else "(?-u:\\" + n.what + ")"
        if n.what == "z":
            return "\\Z" if dialect == "py" else "\\z"
        if n.what == "A":
            return "\\A"
        return n.what
    if k == "flags":
        return "" if dialect == "py" else "(?" + n.what + ")"
    if k == "concat":
        return "".join(emit(c, dialect) for c in n.children)
    if k == "alt":
        return "|".join(emit(c, dialect) for c in n.children)
    if k == "group":
        inner = emit(n.children[0], dialect)
        if n.capture:
            if n.name:
                return f"(?P<{n.name}>{inner})"
            return f"({inner})"
        if n.scoped and dialect == "rust":
            return f"(?{n.scoped}:{inner})"
        return f"(?:{inner})"
    if k == "repeat":
        child = n.children[0]
        inner = emit(child, dialect)
        if child.kind in ("concat", "alt"):
            inner = "(?:" + inner + ")"
        if (n.lo, n.hi) == (0, None):
            q = "*"
        elif (n.lo, n.hi) == (1, None):
            q = "+"
        elif (n.lo, n.hi) == (0, 1):
            q = "?"
        elif n.hi is None:
            q = "{%d,}" % n.lo
        elif n.lo == n.hi:
            q = "{%d}" % n.lo
        else:
            q = "{%d,%d}" % (n.lo, n.hi)
        return inner + q + ("?" if n.lazy else "")
    raise AssertionError(k)


def strip_leading_lazy(n: Node) -> Node:
    """Drops an optional lazy prefix such as gitleaks' `[\\w.-]{0,50}?` at the start of a pattern.

    Unanchored, it changes neither whether a line matches nor the secret group, only where
    the whole match starts; but in the scanner's RegexSet, a hundred such counted prefixes
    make the lazy DFA thrash and fall back to a slow engine (30 times slower here).
    """
    if n.kind == "repeat" and n.lo == 0 and n.lazy:
        return Node("concat", children=[], src="")
    if n.kind == "concat" and n.children:
        kids = list(n.children)
        i = 0
        while i < len(kids) and kids[i].kind == "flags":
            i += 1
        if i < len(kids):
            first = strip_leading_lazy(kids[i])
            if first.kind == "concat" and not first.children:
                del kids[i]
            else:
                kids[i] = first
        return Node(**{**n.__dict__, "children": kids})
    if n.kind == "group" and not n.capture:
        return Node(**{**n.__dict__, "children": [strip_leading_lazy(n.children[0])]})
    return n


def groups_of(n: Node):
    if n.kind == "group" and n.capture:
        yield n
    for c in n.children:
        yield from groups_of(c)


def mandatory_groups(n: Node, out: set):
    """Capture groups that take part in every match."""
    if n.kind == "group":
        if n.capture:
            out.add(n.index)
        mandatory_groups(n.children[0], out)
    elif n.kind == "concat":
        for c in n.children:
            mandatory_groups(c, out)
    elif n.kind == "repeat" and n.lo > 0:
        mandatory_groups(n.children[0], out)
    elif n.kind == "alt" and len(n.children) == 1:
        mandatory_groups(n.children[0], out)


def top_alternatives(n: Node):
    """The top-level alternatives, with the flags in force at the start of each."""
    if n.kind == "alt":
        return list(zip(n.children, n.starts))
    return None


# ---------------------------------------------------------------------------------------
# Example synthesis.

PRINTABLE = [c for c in range(33, 127)]

# Template parts of gitleaks' "keyword = value" rules, filled with readable text.
TEMPLATE_FILL = {
    r"(?:[ \t\w.-]{0,20})": "_key",
    r"""[\s'"]{0,3}""": " ",
    r"(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)": "=",
    r"""[\x60'"\s=]{0,5}""": ' "',
    r"""(?:[\x60'"\s;]|\\[nr]|$)""": '"',
}
TEMPLATE_MARK = r"(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)"


class Gen:
    def __init__(self, rng: random.Random, attempt: int, template: bool):
        self.rng = rng
        self.attempt = attempt
        self.template = template
        self.spans = {}  # capture index -> (start, end) in the output
        self.out = []  # list of (char, is_random)

    def pos(self):
        return len(self.out)

    def run(self, n: Node):
        k = n.kind
        if self.template and n.src in TEMPLATE_FILL and k != "lit":
            self.out.extend((c, False) for c in TEMPLATE_FILL[n.src])
            return
        if k == "lit":
            self.out.append((n.char, False))
        elif k == "class":
            members = [c for c in n.chars if c in PRINTABLE and chr(c) not in "\\\"'`"] or [
                c for c in n.chars if 32 <= c < 127
            ] or sorted(n.chars)
            if not members:
                members = [ord("x")]
            c = chr(self.rng.choice(members))
            if n.ci and c.isalpha() and self.rng.random() < 0.5:
                c = c.swapcase()
            self.out.append((c, True))
        elif k == "any":
            if self.attempt % 2 == 0:  # gitleaks often writes a literal dot as `.`
                self.out.append((".", False))
                return
            self.out.append((self.rng.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"), True))
        elif k in ("assert", "flags"):
            pass
        elif k == "concat":
            for c in n.children:
                self.run(c)
        elif k == "alt":
            self.run(self.choose(n))
        elif k == "group":
            start = self.pos()
            self.run(n.children[0])
            if n.capture:
                self.spans[n.index] = (start, self.pos())
        elif k == "repeat":
            for _ in range(self.count(n)):
                self.run(n.children[0])

    def choose(self, n: Node) -> Node:
        if self.attempt == 0:
            for b in n.children:  # prefer ending the line
                if b.kind == "assert" and b.what == "$":
                    return b
            return n.children[0]
        return self.rng.choice(n.children)

    def count(self, n: Node) -> int:
        lo, hi = n.lo, n.hi
        child = n.children[0]
        if lo == 0 and self.attempt == 0:
            return 0
        if hi is None:
            if child.kind in ("class", "any") and lo < 12:
                return max(lo, 12 + self.rng.randrange(8))
            return max(lo, 1) + (self.rng.randrange(3) if self.attempt else 0)
        if lo == hi:
            return lo
        if self.attempt == 0:
            return lo
        return self.rng.randint(lo, min(hi, lo + 20))

    def text(self):
        return "".join(c for c, _ in self.out)


def entropy(s: str) -> float:
    if not s:
        return 0.0
    counts = Counter(s)
    n = len(s)
    return -sum(v / n * math.log2(v / n) for v in counts.values())


@dataclass
class Conv:
    gid: str  # gitleaks id
    rid: str  # our id, without "secret."
    tree: Node
    rust: str
    py: re.Pattern
    group: int
    entropy: float | None
    keywords: list
    template: bool

    def fires(self, line: str) -> bool:
        """Simulates Scanner::first_real_match (plus the keyword filter)."""
        lower = line.lower()
        if self.keywords and not any(k.lower() in lower for k in self.keywords):
            return False
        for m in self.py.finditer(line):
            s = m.group(self.group) if m.group(self.group) is not None else m.group(0)
            if self.entropy is not None and entropy(s) < self.entropy:
                continue
            return True
        return False


def seed(rid: str, attempt: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{rid}/{attempt}".encode()).digest()[:8], "big")


def synthesize(conv: Conv):
    """A matching example line, and counter-example lines."""
    for attempt in range(40):
        rng = random.Random(seed(conv.rid, attempt))
        g = Gen(rng, attempt, conv.template and attempt < 20)
        g.run(conv.tree)
        m = g.text()
        if "\n" in m or "\r" in m:
            continue
        candidates = [m] if conv.template else ["token: " + m, m]
        candidates += [f"{k} token: {m}" for k in conv.keywords[:1]]
        for line_prefix_len, line in ((len(c) - len(m), c) for c in candidates):
            if not conv.fires(line):
                continue
            start, end = g.spans.get(conv.group, (0, len(g.out)))
            ignores = counter_examples(conv, g, line, line_prefix_len, start, end)
            if ignores:
                return line, ignores
    return None


def env_name(rid: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", rid.upper()).strip("_")


def counter_examples(conv: Conv, g: Gen, line: str, off: int, start: int, end: int):
    # The leading literal part of the secret (e.g. "ghp_"), kept in the placeholder.
    lit = 0
    while start + lit < end and not g.out[start + lit][1]:
        lit += 1
    a, b = off + start, off + end
    env = "${" + env_name(conv.rid) + "}"
    candidates = []
    if conv.template:
        candidates += [line[:a] + env + line[b:], line[:a] + "<your-" + conv.rid + ">" + line[b:]]
    else:
        candidates += [line[: a + lit] + "<your-token>" + line[b:], line[:a] + env + line[b:]]
    candidates += [line[:a] + "YOUR_API_KEY" + line[b:], line[:a] + line[b:]]
    out = []
    for c in candidates:
        if c != line and not conv.fires(c) and c not in out:
            out.append(c)
    return out[:2]


# ---------------------------------------------------------------------------------------
# Messages.

NAMES = {
    "1password": "1Password", "aws": "AWS", "gcp": "GCP", "github": "GitHub", "gitlab": "GitLab",
    "openai": "OpenAI", "npm": "npm", "pypi": "PyPI", "jwt": "JWT", "hashicorp": "HashiCorp",
    "tf": "Terraform", "digitalocean": "DigitalOcean", "huggingface": "Hugging Face", "sendgrid": "SendGrid",
    "sendinblue": "Sendinblue", "linkedin": "LinkedIn", "mailchimp": "Mailchimp", "cloudflare": "Cloudflare",
    "planetscale": "PlanetScale", "rubygems": "RubyGems", "youtube": "YouTube", "nytimes": "New York Times",
    "new": "New", "relic": "Relic", "droneci": "Drone CI", "travisci": "Travis CI", "circleci": "CircleCI",
    "flyio": "Fly.io", "privateai": "Private AI", "rapidapi": "RapidAPI", "sumologic": "Sumo Logic",
    "launchdarkly": "LaunchDarkly", "messagebird": "MessageBird", "settlemint": "SettleMint",
    "sourcegraph": "Sourcegraph", "clickhouse": "ClickHouse", "easypost": "EasyPost", "freshbooks": "FreshBooks",
    "gocardless": "GoCardless", "hubspot": "HubSpot", "jfrog": "JFrog", "kucoin": "KuCoin",
    "microsoft": "Microsoft", "teams": "Teams", "postman": "Postman", "sentry": "Sentry", "intra42": "42 Intra",
    "frameio": "Frame.io", "defined": "Defined", "networking": "Networking", "cisco": "Cisco", "meraki": "Meraki",
    "ad": "AD", "tiktok": "TikTok", "readme": "ReadMe", "octopus": "Octopus", "deploy": "Deploy",
    "dropbox": "Dropbox", "kubernetes": "Kubernetes", "cohere": "Cohere", "amazon": "Amazon", "bedrock": "Bedrock",
}
GENERIC_WORDS = {
    "api", "key", "token", "access", "secret", "client", "id", "pat", "oauth", "app", "refresh", "password",
    "private", "service", "account", "personal", "user", "webhook", "url", "auth", "session", "cookie", "bot",
    "admin", "long", "lived", "short", "org", "organization", "encryption", "public", "pub", "shared", "custom",
    "signing", "upload", "legacy", "workspace", "config", "global", "origin", "ca", "delivery", "insert",
    "browser", "reference", "application", "runner", "authentication", "routable", "cicd", "job", "feature",
    "flag", "feed", "incoming", "mail", "agent", "scim", "ptt", "rrt", "fine", "grained", "identity", "license",
    "page", "test", "bearer", "sensitive", "batch", "v2", "header", "file", "yaml", "ci", "cd", "deploy", "code",
}
KIND_WORDS = {"api": "API", "pat": "PAT", "oauth": "OAuth", "id": "ID", "url": "URL", "cicd": "CI/CD", "ptt": "PTT",
              "rrt": "RRT", "scim": "SCIM", "ca": "CA", "v2": "v2", "yaml": "YAML"}


def message(gid: str) -> str:
    special = {
        "generic-api-key": "what looks like an API key, password or token is written in the skill",
        "curl-auth-header": "a credential is written in a curl authorization header in the skill",
        "curl-auth-user": "a user name and password are written in a curl --user option in the skill",
        "private-key": "a private key is written in the skill",
        "jwt": "a JSON Web Token is written in the skill",
        "jwt-base64": "a base64-encoded JSON Web Token is written in the skill",
    }
    if gid in special:
        return special[gid]
    words = gid.split("-")
    i = 0
    while i < len(words) and (words[i] not in GENERIC_WORDS or i == 0 and words[i] == "deploy"):
        i += 1
    if i == 0:
        i = 1
    provider = " ".join(NAMES.get(w, w.capitalize()) for w in words[:i])
    kind = " ".join(KIND_WORDS.get(w, w) for w in words[i:]) or "secret"
    phrase = f"{provider} {kind}"
    article = "an" if phrase[0].lower() in "aeiou" or phrase.startswith(("AWS", "AD ", "NPM", "SCIM")) else "a"
    return f"{article} {phrase} is written in the skill"


# ---------------------------------------------------------------------------------------
# TOML output.


def toml_str(s: str) -> str:
    if "'''" not in s and "\n" not in s and "\r" not in s and not s.endswith("'") and all(
        ord(c) >= 32 or c == "\t" for c in s
    ):
        return "'''" + s + "'''"
    return json.dumps(s)


def toml_list(items) -> str:
    return "[" + ", ".join(json.dumps(x) for x in items) + "]"


def convert(rule: dict):
    """Our rules for one gitleaks rule, or (None, reason)."""
    gid = rule["id"]
    if gid in SKIP:
        return None, SKIP[gid]
    src = OVERRIDE_PATTERN.get(gid, rule.get("regex"))
    if not src:
        return None, "no content pattern"
    try:
        tree = Parser(src).parse()
    except Unsupported as e:
        return None, f"pattern not translatable: {e}"
    uncapture = gid in UNCAPTURE
    pieces = [(gid, tree, None)]
    mand: set = set()
    mandatory_groups(tree, mand)
    groups = [] if uncapture else list(groups_of(tree))
    want = rule.get("secretGroup") or (groups[0].index if groups else 0)
    if groups and want not in mand:
        alts = top_alternatives(tree)
        if not alts or gid not in SPLIT_NAMES:
            return None, f"secret group {want} does not take part in every match"
        pieces = []
        for name, (branch, flags) in zip(SPLIT_NAMES[gid], alts):
            prefix = "".join(f"(?{c})" for c in "ims" if flags[c])
            text = prefix + branch.src
            pieces.append((name, Parser(text).parse(), None))
    out = []
    for rid, t, _ in pieces:
        t = strip_leading_lazy(strip_leading_lazy(t))
        if uncapture:
            t = strip_captures(t)
        groups = list(groups_of(t))
        if rid != gid:
            group = groups[0].index if groups else 0
        else:
            group = rule.get("secretGroup") or (groups[0].index if groups else 0)
        rust = emit(t, "rust")
        py = emit(t, "py")
        if not groups:
            rust, py, group = "(" + rust + ")", "(" + py + ")", 1
            t = Node("group", capture=True, index=1, children=[t], src="(" + t.src + ")")
        try:
            pyre = re.compile(py, re.ASCII)
        except re.error as e:
            return None, f"pattern not checkable: {e}"
        keywords = list(rule.get("keywords", []))
        conv = Conv(gid, rid, t, rust, pyre, group, ENTROPY.get(gid, rule.get("entropy")), keywords, TEMPLATE_MARK in t.src)
        ex = hand_examples(conv) or synthesize(conv)
        if ex is None:
            return None, "no matching example could be synthesized"
        out.append((conv, ex))
    return out, None


def strip_captures(n: Node) -> Node:
    kids = [strip_captures(c) for c in n.children]
    if n.kind == "group" and n.capture:
        return Node("group", capture=False, children=kids, src=n.src)
    c = Node(**{**n.__dict__, "children": kids})
    return c


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    src = Path(argv[1])
    dest = Path(argv[2]) if len(argv) > 2 else Path(__file__).resolve().parent / "secrets.toml"
    config = tomllib.loads(src.read_text())
    rules = config["rules"]
    body, skipped = [], []
    for rule in rules:
        convs, reason = convert(rule)
        if convs is None:
            skipped.append((rule["id"], reason))
            continue
        for conv, (line, ignores) in convs:
            line = line if isinstance(line, list) else [line]
            gid = conv.gid
            lines = [f"# gitleaks: {gid}" + (f" (part of {gid}, split by alternative)" if conv.rid != gid else "")]
            if gid in NOTES:
                lines.append(f"# note: {NOTES[gid]}")
            if gid in OVERRIDE_PATTERN:
                lines.append("# note: pattern rewritten by hand (why: OVERRIDE_PATTERN in convert-gitleaks.py)")
            if gid in ENTROPY:
                lines.append(f"# note: entropy floor raised from gitleaks' {rule.get('entropy')} (false positives on curated skills)")
            if gid in UNCAPTURE:
                lines.append("# note: gitleaks' capture groups here are not the secret; the whole match is")
            lines += [
                "[[rule]]",
                f'id = "secret.{conv.rid}"',
                'category = "hardcoded-secret"',
                f'severity = "{"medium" if gid in MEDIUM else "high"}"',
                f"pattern = {toml_str(conv.rust)}",
                f"keywords = {toml_list(conv.keywords)}",
                "negatable = false",
                f"secret_group = {conv.group}",
            ]
            if conv.entropy is not None:
                lines.append(f"entropy = {float(conv.entropy)}")
            lines += [
                f"message = {json.dumps(message(conv.rid if conv.rid in ('jwt',) else gid))}",
                f"hint = {json.dumps(HINT)}",
                f"examples.match = {toml_list(line)}",
                f"examples.ignore = {toml_list(ignores)}",
            ]
            body.append("\n".join(lines))
    converted = len(body)
    head = [
        "# Hardcoded secrets: API keys, tokens and private keys written into a skill.",
        "#",
        "# Derived from gitleaks' default rules (https://github.com/gitleaks/gitleaks), MIT,",
        f"# {COPYRIGHT}. Generated by convert-gitleaks.py; do not edit by hand: change the",
        "# converter and run it again:",
        "#   python3 services/scanner/rules/convert-gitleaks.py path/to/gitleaks.toml",
        "# The example secrets below are synthetic (pseudo-random, seeded by rule id).",
        "#",
        "# gitleaks' licence:",
        "#",
        *[("#   " + l).rstrip() for l in LICENSE.splitlines()],
        "#",
        f"# {len(rules)} gitleaks rules: {converted} scanner rules written, {len(skipped)} skipped:",
    ]
    for gid, reason in skipped:
        head.append(f"#   - {gid}: {reason}")
    head.append("")
    head.append('source = "gitleaks default config (MIT), converted by convert-gitleaks.py"')
    dest.write_text("\n".join(head) + "\n\n" + "\n\n".join(body) + "\n")
    print(f"{converted} rules written to {dest}; {len(skipped)} skipped", file=sys.stderr)
    for gid, reason in skipped:
        print(f"  skipped {gid}: {reason}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
