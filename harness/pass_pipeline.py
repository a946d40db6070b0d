"""MLIR's textual pass pipeline, read the way the pass manager reads it.

    pipeline := element (',' element)*
    element  := name ('{' options '}')? ('(' pipeline ')')?     a pass, or an op anchor
    options  := (key ('=' value)?)*                              separated by spaces
    value    := "..." | '...' | {...} | a run of characters up to a space or '}'

A value in braces or quotes keeps everything inside it (a nested pipeline, a command with
spaces). Text this grammar does not take raises PipelineError: a pipeline nobody can read
is never trusted (path_options.py refuses it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
_CLOSING = {"{": "}", "(": ")", "[": "]", '"': '"', "'": "'"}


class PipelineError(ValueError):
    pass


@dataclass(frozen=True)
class Pass:
    name: str  # a pass's argument, or an op anchor's name (func.func, builtin.module)
    options: tuple[tuple[str, str | None], ...]  # (key, value as written, quotes and braces kept)
    nested: tuple["Pass", ...]  # an anchor's pipeline

    def walk(self):
        """This pass and every pass nested in it."""
        yield self
        for inner in self.nested:
            yield from inner.walk()

    def text(self, value_of=lambda key, value: value) -> str:
        """As the pass manager reads it; `value_of(key, value)` may rewrite an option's value."""
        opts = " ".join(k if v is None else f"{k}={value_of(k, v)}" for k, v in self.options)
        return (self.name + ("{" + opts + "}" if self.options else "")
                + ("(" + ",".join(p.text(value_of) for p in self.nested) + ")" if self.nested else ""))


def unquoted(value: str) -> str:
    """A value without the one pair of quotes or braces that wraps it."""
    if len(value) >= 2 and value[0] in "\"'{" and value[-1] == _CLOSING[value[0]]:
        return value[1:-1]
    return value


def parse(text: str) -> tuple[Pass, ...]:
    parser = _Parser(text)
    passes = parser.pipeline()
    parser.skip_space()
    if parser.at < len(text):
        raise PipelineError(f"unexpected {text[parser.at:parser.at + 20]!r} at character {parser.at}")
    return passes


class _Parser:
    def __init__(self, text: str):
        self.text, self.at = text, 0

    def skip_space(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.at] if self.at < len(self.text) else ""

    def pipeline(self) -> tuple[Pass, ...]:
        passes = [self.element()]
        while self.peek() == ",":
            self.at += 1
            passes.append(self.element())
        return tuple(passes)

    def element(self) -> Pass:
        self.skip_space()
        name = _NAME.match(self.text, self.at)
        if not name:
            raise PipelineError(f"expected a pass name at character {self.at}")
        self.at = name.end()
        options: tuple = ()
        nested: tuple = ()
        if self.peek() == "{":
            options = self.options()
        if self.peek() == "(":
            self.at += 1
            nested = () if self.peek() == ")" else self.pipeline()
            if self.peek() != ")":
                raise PipelineError(f"expected ')' closing {name.group()}( at character {self.at}")
            self.at += 1
        return Pass(name.group(), options, nested)

    def options(self) -> tuple[tuple[str, str | None], ...]:
        self.at += 1  # '{'
        found = []
        while self.peek() != "}":
            if not self.peek():
                raise PipelineError("an option list '{' is never closed")
            key = re.compile(r"[^\s=}]+").match(self.text, self.at)
            if not key:
                raise PipelineError(f"expected an option at character {self.at}")
            self.at = key.end()
            value = None
            if self.at < len(self.text) and self.text[self.at] == "=":
                self.at += 1
                value = self.value()
            found.append((key.group(), value))
        self.at += 1  # '}'
        return tuple(found)

    def value(self) -> str:
        start = self.at
        if self.at < len(self.text) and self.text[self.at] in _CLOSING:
            self.balanced()
        else:
            while self.at < len(self.text) and not self.text[self.at].isspace() and self.text[self.at] != "}":
                if self.text[self.at] in "{([":
                    self.balanced()
                else:
                    self.at += 1
        return self.text[start:self.at]

    def balanced(self) -> None:
        """Past one bracketed or quoted run, nested brackets and quotes inside it included."""
        stack = [_CLOSING[self.text[self.at]]]
        self.at += 1
        while stack:
            if self.at >= len(self.text):
                raise PipelineError(f"{stack[-1]!r} never comes: the value is not closed")
            c = self.text[self.at]
            if c == stack[-1]:
                stack.pop()
            elif stack[-1] not in "\"'" and c in _CLOSING:
                stack.append(_CLOSING[c])
            elif stack[-1] not in "\"'" and c in ")}]":
                raise PipelineError(f"{c!r} closes nothing at character {self.at}")
            self.at += 1
