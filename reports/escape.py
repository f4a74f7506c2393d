"""One escaper per output format, for every string that comes from a result file.

A result is untrusted input (it may be crafted or damaged), so every renderer of every family
passes the result's strings through the escaper of its format before they reach the output:

- :func:`terminal` for text (a terminal, a CI log, a ``-o`` text file): C0/C1 control
  characters (BEL, CR, NUL, ESC, ...) and the bidirectional overrides/isolates are removed,
  so a result cannot move the cursor, ring, recolour or visually reorder what is shown;
- :func:`markdown` for Markdown (CommonMark/GitHub, CI job summaries): no raw HTML can pass
  (``<``, ``>``, ``&`` become entities), table pipes, backticks and emphasis characters are
  escaped, newlines become spaces, so a value stays inside its table cell or line;
- :func:`html` for HTML built by hand; the Jinja2 templates autoescape (``templating.py``),
  and both also drop the terminal's control characters.

Standard library only.
"""

from __future__ import annotations

import html as _html
import re

#: C0 controls except TAB and LF... are removed by :func:`terminal` (LF and TAB are kept when
#: ``keep_newlines``), DEL, C1 controls, and the bidi embeddings/overrides/isolates.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_ALL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_LINEBREAKS = re.compile("\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def terminal(text: object, keep_newlines: bool = False) -> str:
    """``text`` without control characters or bidi controls (TAB and, with
    ``keep_newlines``, LF kept; any other line break becomes a space)."""
    s = str(text)
    if keep_newlines:
        return _CONTROL.sub("", s.replace("\r\n", "\n"))
    return _CONTROL_ALL.sub("", _LINEBREAKS.sub(" ", s).replace("\t", " "))


def markdown(text: object) -> str:
    """``text`` as literal Markdown on one line: no raw HTML, no markup, no table break."""
    s = terminal(text)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", s)


def html(text: object) -> str:
    """``text`` as HTML character data or a quoted attribute value."""
    return _html.escape(terminal(text, keep_newlines=True), quote=True)
