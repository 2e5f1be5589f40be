"""Loop unrolling of kernel text: `// unroll` before a counted loop over a constant.

A kernel that keeps a few values per invocation in a function array (`var v: array<vec4<T>,
ROWS>`) and walks it in `for` loops is the natural way to write it, but the loop index is
then a run-time value: an NVIDIA driver compiling the SPIR-V that naga makes of it keeps such
arrays in local memory rather than registers (measured on an H200: the single-pass scan's
tile scan took 0.71 ms at 2^28 elements with the loops, 0.54-0.56 ms unrolled, against 0.57
for a plain copy). So the loops that index such arrays are marked, and the text compiled is
the loop body once per index, each copy with the index a constant:

    // unroll
    for (var k = 0u; k < ROWS; k++) {      ->   {
      v[k] = load_vec(base + k * s);              let k = 0u;
    }                                             v[k] = load_vec(base + k * s);
                                                }
                                                { let k = 1u; ... }

The kernel file stays plain WGSL (the comment is only a comment), so `wgprim check` reads it
as written, and the tests check the unrolled text as compiled (program.module_source). The
bound is a literal (`4u`) or a `const NAME: u32 = <n>u;` declared in the same text (the
preamble, usually); the loop starts at 0u, steps by one, and its body has no `break` or
`continue`. Anything else is an error naming the loop, never a silently different kernel.

A text holding the line `// unroll: off` is compiled with its loops as written (measurement
only: `ChainedRecorder(unroll=False)` times the scan that way).
"""
from __future__ import annotations

import re

_MARK = re.compile(r"^([ \t]*)// unroll[ \t]*\n", re.M)
_LOOP = re.compile(r"([ \t]*)for \(var (\w+) = 0u; \2 < (\w+); \2\+\+\) \{[ \t]*\n?")
_CONST = re.compile(r"\bconst (\w+)\s*:\s*u32\s*=\s*(\d+)u?\s*;")
_LITERAL = re.compile(r"(\d+)u?")
OFF = "// unroll: off\n"
MAX_COPIES = 64  # a bound past this is a mistake (a loop that was not meant to be unrolled)


class UnrollError(ValueError):
    """A loop marked `// unroll` that cannot be unrolled as written."""


def _bound(name: str, consts: dict[str, int], where: str) -> int:
    literal = _LITERAL.fullmatch(name)
    if literal:
        return int(literal.group(1))
    if name not in consts:
        raise UnrollError(f"{where}: bound {name} is not a `const {name}: u32 = <n>u;` of the kernel text")
    return consts[name]


def _matching_close(code: str, open_brace: int) -> int:
    """Index of the `}` that closes the `{` at `open_brace` (comments and strings aside:
    WGSL has no strings, and the kernels' comments hold no braces that matter here)."""
    depth, i = 0, open_brace
    while i < len(code):
        c = code[i]
        if c == "/" and code.startswith("//", i):
            i = code.find("\n", i)
            if i < 0:
                break
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise UnrollError("unbalanced braces after a `// unroll` loop")


def unroll(code: str) -> str:
    """`code` with every loop marked `// unroll` written out once per index."""
    if "// unroll" not in code or OFF in code:
        return code
    consts = {m.group(1): int(m.group(2)) for m in _CONST.finditer(code)}
    out, pos = [], 0
    for mark in _MARK.finditer(code):
        if mark.start() < pos:
            raise UnrollError("a `// unroll` loop inside another one")
        loop = _LOOP.match(code, mark.end())
        line = code.count("\n", 0, mark.start()) + 2
        where = f"line {line} of the kernel text"
        if loop is None:
            raise UnrollError(f"{where}: `// unroll` must be followed by `for (var i = 0u; i < N; i++) {{`")
        indent, var, bound = loop.group(1), loop.group(2), loop.group(3)
        n = _bound(bound, consts, where)
        if not 0 <= n <= MAX_COPIES:
            raise UnrollError(f"{where}: {n} copies (at most {MAX_COPIES})")
        close = _matching_close(code, loop.start() + loop.group(0).rindex("{"))
        line_start = code.rfind("\n", loop.end() - 1, close) + 1
        body = code[loop.end():close] + "\n" if code[line_start:close].strip() else code[loop.end():line_start]
        if re.search(r"\b(break|continue|return)\b", body) or re.search(rf"\b{var}\s*(\+\+|--|[-+*/]?=[^=])", body):
            raise UnrollError(f"{where}: the body of an unrolled loop may not break, continue, return "
                              f"or assign {var}")
        end_of_line = code.find("\n", close)
        end_of_line = len(code) if end_of_line < 0 else end_of_line + 1
        out.append(code[pos:mark.start()])
        for i in range(n):
            out.append(f"{indent}{{\n{indent}  let {var} = {i}u;\n{body}{indent}}}\n")
        pos = end_of_line
    out.append(code[pos:])
    return "".join(out)
