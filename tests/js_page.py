"""Run a page's own script in Node.js against a small stand-in for the DOM, for the tests of what
the browser pages render (``agents/arena/static/play.html``, the replay page) where no Chromium
is installed: the script builds its elements as in a browser, and the test reads them back as
JSON (tag, attributes, own text, children).

The stand-in implements what the pages call: ``document.createElement``, ``getElementById``
(an element is made on first use, as if the page's HTML held it), ``querySelectorAll`` with a
tag name or ``#id tag``, ``setAttribute``, ``appendChild``, ``replaceChildren``,
``textContent``, event listeners (the test fires them), ``fetch`` answered from a table of
canned JSON responses, and timers that fire at once. It is no browser: layout, CSS and focus
are not checked here (the Chromium tests do that where Chromium is installed).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

NODE = shutil.which("node") or shutil.which("nodejs")

_SHIM = r"""
"use strict";
const byId = Object.create(null);
class El {
  constructor(tag) {
    this.tagName = tag; this.attrs = {}; this.children = []; this.text = "";
    this.listeners = {}; this.hidden = false; this.disabled = false; this.value = "";
    this.href = ""; this.max = ""; this.parent = null;
  }
  setAttribute(k, v) { this.attrs[k] = String(v); if (k === "id") byId[v] = this; }
  getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }
  appendChild(c) { c.parent = this; this.children.push(c); return c; }
  replaceChildren(...cs) { for (const c of cs) c.parent = this; this.children = cs; }
  set textContent(t) { this.text = String(t); this.children = []; }
  get textContent() { return this.text + this.children.map((c) => c.textContent).join(""); }
  addEventListener(ev, f) { (this.listeners[ev] = this.listeners[ev] || []).push(f); }
  descendants() { return this.children.flatMap((c) => [c, ...c.descendants()]); }
  querySelectorAll(sel) { return query(this, sel); }
  focus() {} scrollIntoView() {}
}
function query(root, sel) {
  const parts = sel.trim().split(/\s+/);
  let scope = [root];
  for (const part of parts) {
    if (part.startsWith("#")) { scope = [document.getElementById(part.slice(1))]; continue; }
    scope = scope.flatMap((e) => e.descendants().filter((d) => d.tagName === part));
  }
  return scope;
}
const body = new El("body");
globalThis.document = {
  body: body,
  createElement: (tag) => new El(tag),
  getElementById: (id) => {
    if (!(id in byId)) { const e = new El("div"); e.setAttribute("id", id); body.appendChild(e); }
    return byId[id];
  },
  querySelectorAll: (sel) => query(body, sel),
  addEventListener: (ev, f) => body.addEventListener(ev, f),
};
globalThis.window = {addEventListener: () => {}};
globalThis.location = {hash: ""};
globalThis.history = {replaceState: () => {}};
globalThis.setTimeout = (f) => { f(); return 0; };
const RESPONSES = JSON.parse(process.env.PAGE_RESPONSES || "{}");
globalThis.fetch = async (path, opts) => {
  const key = ((opts && opts.method) || "GET") + " " + path;
  const hit = key in RESPONSES ? RESPONSES[key]
    : {status: 404, body: {error: "no canned response for " + key}};
  return {ok: hit.status < 400, status: hit.status, json: async () => hit.body};
};
function dump(e) {
  return {tag: e.tagName, attrs: e.attrs, text: e.text, hidden: e.hidden,
          children: e.children.map(dump)};
}
async function fire(id, ev) {
  for (const f of document.getElementById(id).listeners[ev] || []) {
    await f({preventDefault() {}, target: document.getElementById(id)});
  }
}
const settle = () => new Promise((r) => setImmediate(r));
"""


def run_page(
    script: str,
    before: str = "",
    after: str = "",
    responses: dict[str, Any] | None = None,
    timeout: float = 60,
) -> dict[str, Any]:
    """Run ``before`` (set up elements and values the page's HTML would have), the page's
    ``script``, then ``after`` (fire events: ``await fire("new-game", "submit")``), and return
    the document's body as JSON (:func:`find` searches it). ``responses`` maps ``"METHOD
    PATH"`` to ``{"status", "body"}`` for the page's ``fetch`` calls.

    Raises:
        AssertionError: Node.js is missing or the script failed (its stderr).
    """
    assert NODE, "Node.js is not installed"
    program = (
        _SHIM + before + "\n" + script + "\n"
        + "(async () => { await settle(); " + after
        + "\n await settle(); await settle();"
        + " process.stdout.write(JSON.stringify(dump(body))); })()"
        + ".catch((e) => { console.error(e && e.stack || e); process.exit(1); });\n"
    )  # fmt: skip
    proc = subprocess.run(
        [NODE, "-"],
        input=program,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PAGE_RESPONSES": json.dumps(responses or {}), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    dom: dict[str, Any] = json.loads(proc.stdout)
    return dom


def text_of(node: dict[str, Any]) -> str:
    """The element's text with its descendants' (``textContent``)."""
    return node["text"] + "".join(text_of(c) for c in node["children"])


def find(node: dict[str, Any], tag: str | None = None, **attrs: str) -> list[dict[str, Any]]:
    """Every element under ``node`` (itself included) with that tag and those attributes
    (``cls="x"``: ``x`` among the class names; ``data_seat="1"``: ``data-seat``)."""
    out = []

    def matches(n: dict[str, Any]) -> bool:
        if tag is not None and n["tag"] != tag:
            return False
        for key, want in attrs.items():
            if key == "cls":
                if want not in n["attrs"].get("class", "").split():
                    return False
            elif n["attrs"].get(key.replace("_", "-")) != want:
                return False
        return True

    stack = [node]
    while stack:
        n = stack.pop()
        if matches(n):
            out.append(n)
        stack.extend(reversed(n["children"]))
    return out


def page_script(html: str) -> str:
    """The page's inline script: the text of its last ``<script>`` element."""
    start = html.rindex("<script>") + len("<script>")
    return html[start : html.index("</script>", start)]
