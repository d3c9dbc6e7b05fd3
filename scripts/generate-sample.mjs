#!/usr/bin/env node
// Writes samples/demo-trajectory.json, the README's demo input: an OpenAI chat-completions run
// ({model, messages}) of a coding agent fixing ticket ABC-123 in "tinyfits", a small Python library
// that writes FITS-style header cards.
//
// The file is generated, not hand-written, and the same on every run: timings and ids come from a
// seeded generator, and every observation is computed from an in-memory copy of the project, so
// reads, greps, edits, `git diff` and the pytest reports stay consistent with one another when
// the story below changes. Usage: node scripts/generate-sample.mjs

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

// An optional path argument writes elsewhere (the tests regenerate into a temp dir and compare).
const OUT = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'samples', 'demo-trajectory.json');

// ---------- determinism ----------

/** mulberry32: a tiny seeded PRNG, so timings, hashes and call ids repeat exactly. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(0xabc123);
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const callId = () => 'call_' + Array.from({ length: 24 }, () => ID_CHARS[Math.floor(rand() * ID_CHARS.length)]).join('');
const seconds = (lo, hi) => (lo + rand() * (hi - lo)).toFixed(2);

// ---------- the project the agent works on (tinyfits, before the fix) ----------

const CARD_PY = `"""Header cards: one 80-character record holding a keyword, a value and a comment."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import CardFormatError, ErrorCode

CARD_LENGTH = 80
KEYWORD_LENGTH = 8
VALUE_INDICATOR = "= "
# Fixed-format values are right-aligned so that numbers end in column 30.
VALUE_WIDTH = 20

_KEYWORD_RE = re.compile(r"^[A-Z0-9_-]{0,8}$")
_INT_RE = re.compile(r"^[+-]?\\d+$")
_FLOAT_RE = re.compile(r"^[+-]?(\\d+\\.?\\d*|\\.\\d+)([EDed][+-]?\\d+)?$")


def _format_keyword(keyword: str) -> str:
    keyword = keyword.strip().upper()
    if len(keyword) > KEYWORD_LENGTH:
        raise CardFormatError(
            ErrorCode.KEYWORD_TOO_LONG,
            f"keyword {keyword!r} is longer than {KEYWORD_LENGTH} characters",
        )
    if not _KEYWORD_RE.match(keyword):
        raise CardFormatError(
            ErrorCode.KEYWORD_INVALID,
            f"keyword {keyword!r} contains characters outside A-Z, 0-9, _ and -",
        )
    return keyword


def _format_float(value: float) -> str:
    text = repr(value)
    if len(text) > VALUE_WIDTH:
        raise CardFormatError(
            ErrorCode.VALUE_TOO_WIDE,
            f"value {text} does not fit in {VALUE_WIDTH} columns",
        )
    return text


def _format_value(value: object) -> str:
    if value is None:
        return " " * VALUE_WIDTH
    if isinstance(value, bool):
        return ("T" if value else "F").rjust(VALUE_WIDTH)
    if isinstance(value, int):
        text = str(value)
        if len(text) > VALUE_WIDTH:
            raise CardFormatError(
                ErrorCode.VALUE_TOO_WIDE,
                f"value {text} does not fit in {VALUE_WIDTH} columns",
            )
        return text.rjust(VALUE_WIDTH)
    if isinstance(value, float):
        return _format_float(value).rjust(VALUE_WIDTH)
    if isinstance(value, str):
        escaped = value.replace("'", "''")
        return f"'{escaped:<8}'".ljust(VALUE_WIDTH)
    raise CardFormatError(
        ErrorCode.UNSUPPORTED_TYPE,
        f"cannot store a {type(value).__name__} in a card",
    )


def _parse_value(text: str) -> object:
    text = text.strip()
    if not text:
        return None
    if text.startswith("'"):
        end = text.rfind("'")
        if end == 0:
            raise CardFormatError(
                ErrorCode.UNTERMINATED_STRING, f"string value {text!r} is not closed"
            )
        return text[1:end].replace("''", "'").rstrip()
    if text in ("T", "F"):
        return text == "T"
    if _INT_RE.match(text):
        return int(text)
    if _FLOAT_RE.match(text):
        return float(text.upper().replace("D", "E"))
    raise CardFormatError(ErrorCode.UNPARSABLE_VALUE, f"cannot parse value {text!r}")


def _split_comment(text: str) -> tuple[str, str]:
    """Splits 'value / comment' at the first slash that is not inside a quoted string."""
    in_string = False
    for i, ch in enumerate(text):
        if ch == "'":
            in_string = not in_string
        elif ch == "/" and not in_string:
            return text[:i], text[i + 1 :]
    return text, ""


@dataclass
class Card:
    """One header record. The value is formatted when the card is made, so bad values fail early."""

    keyword: str
    value: object = None
    comment: str = ""
    _value_text: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.keyword = _format_keyword(self.keyword)
        self._value_text = _format_value(self.value)

    @property
    def image(self) -> str:
        """The card as written to disk: exactly 80 characters."""
        text = self.keyword.ljust(KEYWORD_LENGTH)
        if self.value is not None or self.comment:
            text += VALUE_INDICATOR + self._value_text
        if self.comment:
            text += " / " + self.comment
        return text[:CARD_LENGTH].ljust(CARD_LENGTH)

    @classmethod
    def fromstring(cls, image: str) -> Card:
        if len(image) > CARD_LENGTH:
            raise CardFormatError(
                ErrorCode.CARD_TOO_LONG,
                f"card is {len(image)} characters, the limit is {CARD_LENGTH}",
            )
        image = image.ljust(CARD_LENGTH)
        keyword = image[:KEYWORD_LENGTH].strip()
        if image[KEYWORD_LENGTH : KEYWORD_LENGTH + 2] != VALUE_INDICATOR:
            return cls(keyword, None, image[KEYWORD_LENGTH:].strip())
        value_text, comment = _split_comment(image[KEYWORD_LENGTH + 2 :])
        return cls(keyword, _parse_value(value_text), comment.strip())

    def __str__(self) -> str:
        return self.image
`;

const ERRORS_PY = `"""Error codes shared by the reader, the writer and the verifier."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class ErrorCode(str, Enum):
    KEYWORD_TOO_LONG = "E101"
    KEYWORD_INVALID = "E102"
    VALUE_TOO_WIDE = "E201"
    UNSUPPORTED_TYPE = "E202"
    UNPARSABLE_VALUE = "E203"
    BAD_FIXED_FORMAT = "E204"
    UNTERMINATED_STRING = "E301"
    CARD_TOO_LONG = "E401"
    MISSING_KEYWORD = "E501"
    BAD_CHECKSUM = "E601"


class CardFormatError(ValueError):
    """A value or keyword that cannot be written as a fixed-format card."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"[{code.value}] {message}")
        self.code = code


@dataclass(frozen=True)
class VerifyIssue:
    code: ErrorCode
    keyword: str
    message: str

    def __str__(self) -> str:
        return f"[{self.code.value}] {self.keyword}: {self.message}"
`;

const VERIFY_PY = `"""Checks a header against the fixed-format rules before it is written."""

from __future__ import annotations

import re

from .card import Card
from .errors import ErrorCode, VerifyIssue
from .header import Header

# Columns 11-30 of a card hold a fixed-format value.
_VALUE_FIELD = slice(10, 30)
_FIXED_INT_RE = re.compile(r"^ *[+-]?\\d+$")
_FIXED_FLOAT_RE = re.compile(r"^ *[+-]?\\d+\\.\\d*(E[+-]\\d{2})?$")
_FIXED_LOGICAL_RE = re.compile(r"^ {19}[TF]$")
_REQUIRED = ("SIMPLE", "BITPIX", "NAXIS")


def verify_card(card: Card) -> list[VerifyIssue]:
    field = card.image[_VALUE_FIELD]
    value = card.value
    if isinstance(value, bool):
        ok = bool(_FIXED_LOGICAL_RE.match(field))
        kind = "logical"
    elif isinstance(value, int):
        ok = bool(_FIXED_INT_RE.match(field))
        kind = "integer"
    elif isinstance(value, float):
        ok = bool(_FIXED_FLOAT_RE.match(field))
        kind = "float"
    else:
        return []
    if ok:
        return []
    return [
        VerifyIssue(
            ErrorCode.BAD_FIXED_FORMAT,
            card.keyword,
            f"value field {field!r} is not a valid fixed-format {kind}",
        )
    ]


def verify_header(header: Header) -> list[VerifyIssue]:
    issues: list[VerifyIssue] = []
    for position, keyword in enumerate(_REQUIRED):
        if header.keyword_at(position) != keyword:
            issues.append(
                VerifyIssue(
                    ErrorCode.MISSING_KEYWORD,
                    keyword,
                    f"expected {keyword} as card {position + 1}",
                )
            )
    for card in header:
        issues.extend(verify_card(card))
    return issues
`;

const HEADER_PY = `"""An ordered list of cards, with dict-style access by keyword."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .card import CARD_LENGTH, Card

BLOCK_LENGTH = 2880
END_CARD = "END".ljust(CARD_LENGTH)


class Header:
    def __init__(self, cards: Iterable[Card] = ()) -> None:
        self._cards: list[Card] = list(cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self._cards)

    def __len__(self) -> int:
        return len(self._cards)

    def __contains__(self, keyword: str) -> bool:
        return any(card.keyword == keyword.upper() for card in self._cards)

    def __getitem__(self, keyword: str) -> object:
        for card in self._cards:
            if card.keyword == keyword.upper():
                return card.value
        raise KeyError(keyword)

    def __setitem__(self, keyword: str, value: object) -> None:
        for i, card in enumerate(self._cards):
            if card.keyword == keyword.upper():
                self._cards[i] = Card(card.keyword, value, card.comment)
                return
        self._cards.append(Card(keyword, value))

    def keyword_at(self, position: int) -> str | None:
        return self._cards[position].keyword if position < len(self._cards) else None

    def tostring(self) -> str:
        """Cards, then END, padded with blanks to a whole number of 2880-byte blocks."""
        text = "".join(card.image for card in self._cards) + END_CARD
        return text.ljust(-(-len(text) // BLOCK_LENGTH) * BLOCK_LENGTH)

    @classmethod
    def fromstring(cls, text: str) -> Header:
        cards = []
        for start in range(0, len(text), CARD_LENGTH):
            image = text[start : start + CARD_LENGTH]
            if image.rstrip() == "END":
                break
            if image.strip():
                cards.append(Card.fromstring(image))
        return cls(cards)

    def __repr__(self) -> str:
        return "\\n".join(card.image.rstrip() for card in self._cards)
`;

const INIT_PY = `"""tinyfits: read and write FITS-style header cards without numpy."""

from .card import Card
from .errors import CardFormatError, ErrorCode, VerifyIssue
from .header import Header
from .verify import verify_card, verify_header

__all__ = [
    "Card",
    "CardFormatError",
    "ErrorCode",
    "Header",
    "VerifyIssue",
    "verify_card",
    "verify_header",
]
__version__ = "0.4.2"
`;

const TEST_CARD_PY = `import math

import pytest

from tinyfits import Card, CardFormatError, ErrorCode


def test_keyword_is_upper_cased():
    assert Card("naxis", 2).keyword == "NAXIS"


def test_keyword_too_long():
    with pytest.raises(CardFormatError) as info:
        Card("EXPOSURETIME", 1)
    assert info.value.code is ErrorCode.KEYWORD_TOO_LONG


@pytest.mark.parametrize("keyword", ["BAD KEY", "A.B", "É", "X+Y", "A/B", "KEY!"])
def test_keyword_invalid(keyword):
    with pytest.raises(CardFormatError) as info:
        Card(keyword, 1)
    assert info.value.code is ErrorCode.KEYWORD_INVALID


def test_int():
    assert Card("NAXIS", 2).image[:30] == "NAXIS   =                    2"


def test_bool():
    assert Card("SIMPLE", True).image[10:30] == " " * 19 + "T"


def test_string_is_quoted_and_padded():
    assert Card("OBJECT", "M31").image[10:30] == "'M31     '          "


def test_comment():
    image = Card("EXPTIME", 30, "exposure time [s]").image
    assert image[30:] == " / exposure time [s]".ljust(50)


def test_image_is_80_characters():
    assert len(Card("COMMENT", None, "x" * 200).image) == 80


def test_float():
    card = Card("EXPTIME", 1e-05, "exposure time [s]")
    assert card.image[10:30] == "             1.0E-05"


@pytest.mark.parametrize(
    "value, text",
    [(1e-05, "1.0E-05"), (2.5e20, "2.5E+20"), (6.02214076e23, "6.02214076E+23")],
)
def test_float_exponent(value, text):
    assert Card("VAL", value).image[10:30] == text.rjust(20)


def test_float_too_long():
    value = -1.2345678901234568e-300
    card = Card("TINY", value)
    assert len(card.image[10:30].strip()) <= 20
    assert math.isclose(Card.fromstring(card.image).value, value, rel_tol=1e-12)


@pytest.mark.parametrize("value", [0.0, 1.5, -2.25, 0.1, 1 / 3, 1e100, 123456.789])
def test_float_roundtrip(value):
    assert Card.fromstring(Card("VAL", value).image).value == value


def test_fromstring_reads_fortran_exponent():
    assert Card.fromstring("BSCALE  =               1.0D+00").value == 1.0
`;

const TEST_VERIFY_PY = `import pytest

from tinyfits import Card, ErrorCode, Header, verify_card, verify_header

from .conftest import FLOAT_SAMPLES


def minimal_header(*cards):
    return Header([Card("SIMPLE", True), Card("BITPIX", -64), Card("NAXIS", 0), *cards])


def test_minimal_header_is_valid():
    assert verify_header(minimal_header()) == []


def test_missing_required_keyword():
    issues = verify_header(Header([Card("BITPIX", 8)]))
    assert [issue.code for issue in issues] == [ErrorCode.MISSING_KEYWORD] * 3


def test_string_values_are_not_checked():
    assert verify_card(Card("OBJECT", "M31")) == []


@pytest.mark.parametrize("value", FLOAT_SAMPLES)
def test_verify_roundtrip_floats(value):
    assert verify_header(minimal_header(Card("VAL", value))) == []
`;

const CONFTEST_PY = `from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

# Floats every writer test should survive; the last one needs a three-digit exponent.
FLOAT_SAMPLES = [
    0.0,
    1.5,
    -2.25,
    3.14159,
    1e-05,
    2.5e20,
    6.02214076e23,
    -1.2345678901234568e-300,
]


@pytest.fixture
def simple_header_text():
    return (DATA / "simple.hdr").read_text()
`;

const FORMAT_MD = `# The card format tinyfits writes

A header is a sequence of 80-character cards followed by an \`END\` card, padded with
blanks to a multiple of 2880 bytes.

## Fixed-format values

Columns 1-8 hold the keyword and columns 9-10 the value indicator \`= \`. Fixed-format values
sit in columns 11-30:

- logical values: \`T\` or \`F\` in column 30;
- integers: right-aligned, ending in column 30;
- strings: a quote in column 11, at least 8 characters, closing quote at column 20 or later;
- floating-point values: right-aligned, ending in column 30. The mantissa **must contain a
  decimal point**, and the exponent, if any, is written with an upper-case \`E\` (or \`D\` for
  double precision), a sign and at least two digits: \`1.0E-05\`, \`-2.5E+300\`.

Values that do not fit in 20 columns must be written with fewer significant digits rather
than spilling into the comment. Readers other than tinyfits (cfitsio, astropy) reject
lower-case exponents and mantissas without a decimal point.

## Comments

A comment follows the value after \` / \` and is cut at column 80.
`;

const CHANGELOG_MD = `# Changelog

## Unreleased

## 0.4.2 (2024-05-02)

- \`Header.fromstring\` skips blank cards instead of failing with E203.
- \`verify_header\` reports every missing required keyword, not only the first.

## 0.4.1 (2024-03-18)

- Strings with embedded quotes are escaped as \`''\` when written.
- New error code E401 for cards longer than 80 characters.

## 0.4.0 (2024-02-07)

- \`Card\` validates its value when it is created (E201/E202 are raised early).
- Dropped Python 3.8.
`;

const README_MD = `# tinyfits

Read and write FITS-style header cards in pure Python, without numpy.

\`\`\`python
from tinyfits import Card, Header

header = Header([Card("SIMPLE", True), Card("BITPIX", 16), Card("NAXIS", 0)])
header["EXPTIME"] = 30.0
open("out.hdr", "w").write(header.tostring())
\`\`\`

## Development

\`\`\`
python -m venv .venv && . .venv/bin/activate
pip install -e '.[test]'
pytest
ruff check tinyfits tests
\`\`\`

Every error carries a code (\`E101\`...\`E601\`); see \`tinyfits/errors.py\` and \`docs/format.md\`.
`;

const PYPROJECT = `[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "tinyfits"
version = "0.4.2"
description = "Read and write FITS-style header cards without numpy"
requires-python = ">=3.9"
license = { text = "BSD-3-Clause" }
dependencies = []

[project.optional-dependencies]
test = ["pytest>=7.4", "pytest-cov>=4.1", "hypothesis>=6.90", "ruff>=0.4", "mypy>=1.8"]

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "--strict-markers"

[tool.ruff]
line-length = 100
target-version = "py39"

[tool.mypy]
strict = true
`;

const PROJECT_FILES = {
  'README.md': README_MD,
  'CHANGELOG.md': CHANGELOG_MD,
  'pyproject.toml': PYPROJECT,
  'docs/format.md': FORMAT_MD,
  'tinyfits/__init__.py': INIT_PY,
  'tinyfits/card.py': CARD_PY,
  'tinyfits/errors.py': ERRORS_PY,
  'tinyfits/header.py': HEADER_PY,
  'tinyfits/verify.py': VERIFY_PY,
  'tests/conftest.py': CONFTEST_PY,
  'tests/test_card.py': TEST_CARD_PY,
  'tests/test_verify.py': TEST_VERIFY_PY,
};
// ---------- the test suite pytest collects (node ids, in collection order) ----------

const ids = (file, name, params) => (params ? params.map((p) => `${file}::${name}[${p}]`) : [`${file}::${name}`]);
const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const DATA_FILES = ['simple.hdr', 'wide.hdr', 'comments.hdr', 'continue.hdr', 'hst_wfc3.hdr', 'sdss_frame.hdr',
  'chandra_evt.hdr', 'blank_cards.hdr', 'long_strings.hdr', 'logical.hdr', 'history.hdr', 'checksum.hdr'];

function suite() {
  const t = [];
  const add = (file, entries) => entries.forEach(([name, params]) => t.push(...ids(file, name, params)));
  add('tests/test_card.py', [
    ['test_keyword_is_upper_cased'], ['test_keyword_too_long'],
    ['test_keyword_invalid', ['BAD KEY', 'A.B', '\\xc9', 'X+Y', 'A/B', 'KEY!']],
    ['test_int'], ['test_bool'], ['test_string_is_quoted_and_padded'], ['test_comment'], ['test_image_is_80_characters'],
    ['test_float'], ['test_float_exponent', ['1e-05-1.0E-05', '2.5e+20-2.5E+20', '6.02214076e+23-6.02214076E+23']],
    ['test_float_too_long'], ['test_float_roundtrip', ['0.0', '1.5', '-2.25', '0.1', '0.3333333333333333', '1e+100', '123456.789']],
    ['test_fromstring_reads_fortran_exponent'],
  ]);
  add('tests/test_checksum.py', [
    ['test_checksum_known_values', DATA_FILES],
    ['test_datasum_empty'], ['test_datasum_known_values', range(8, (i) => `block${i}`)],
    ['test_encode_ascii', range(10, (i) => `${i * 1234567}`)],
    ['test_verify_checksum_detects_change', range(12, (i) => `card${i}`)],
    ['test_checksum_keyword_written_last'], ['test_checksum_ignores_trailing_blanks'],
  ]);
  add('tests/test_cli.py', [
    ['test_dump', DATA_FILES], ['test_dump_json', DATA_FILES.slice(0, 6)],
    ['test_verify_command_ok', DATA_FILES.slice(0, 8)], ['test_verify_command_reports_codes'],
    ['test_set_keyword', ['int', 'float', 'bool', 'string', 'none']], ['test_set_keyword_rejects_long_keyword'],
    ['test_exit_code_on_missing_file'], ['test_help'], ['test_version'],
  ]);
  add('tests/test_compat.py', [
    ['test_matches_reference_writer', ['SIMPLE', 'BITPIX', 'NAXIS', 'NAXIS1', 'NAXIS2', 'EXTEND', 'BSCALE', 'BZERO', 'BUNIT', 'OBJECT',
      'TELESCOP', 'INSTRUME', 'OBSERVER', 'DATE-OBS', 'EXPTIME', 'EQUINOX', 'RA', 'DEC', 'CRPIX1', 'CRPIX2', 'CRVAL1', 'CRVAL2',
      'CDELT1', 'CDELT2', 'CTYPE1', 'CTYPE2', 'AIRMASS', 'GAIN', 'RDNOISE', 'FILTER']],
    ['test_reference_header_parses', DATA_FILES.slice(4, 8)],
  ]);
  add('tests/test_continue.py', [
    ['test_long_string_split', range(20, (i) => `${68 + i * 17}`)], ['test_continue_roundtrip', DATA_FILES],
    ['test_ampersand_marker'], ['test_continue_without_string_raises'], ['test_comment_on_last_continue'], ['test_quote_at_split_point'],
  ]);
  add('tests/test_errors.py', [
    ['test_codes_are_unique'], ['test_message_starts_with_code', ['E101', 'E102', 'E201', 'E202', 'E203', 'E204', 'E301', 'E401', 'E501', 'E601']],
    ['test_card_format_error_is_value_error'], ['test_verify_issue_str'], ['test_verify_issue_is_hashable'],
  ]);
  add('tests/test_header.py', [
    ['test_len'], ['test_contains'], ['test_contains_is_case_insensitive'], ['test_getitem'], ['test_getitem_missing_raises_keyerror'],
    ['test_setitem_replaces_value'], ['test_setitem_keeps_comment'], ['test_setitem_appends'], ['test_keyword_at'], ['test_keyword_at_past_end'],
    ['test_tostring_block_multiple', ['0', '1', '2', '35', '36', '37', '71', '72', '73', '144']],
    ['test_tostring_ends_with_end_card'], ['test_fromstring_roundtrip', DATA_FILES], ['test_fromstring_stops_at_end'],
    ['test_fromstring_skips_blank_cards'], ['test_repr_lists_cards'], ['test_iteration_order'],
    ['test_update_many', range(8, (i) => `n${i * 5}`)], ['test_duplicate_keywords_first_wins'], ['test_history_cards_kept_in_order'],
  ]);
  add('tests/test_io.py', [
    ['test_read_header', DATA_FILES], ['test_write_header_pads_to_block', range(10, (i) => `${i * 9}`)],
    ['test_read_gzip', DATA_FILES.slice(0, 4)], ['test_read_missing_end_raises'], ['test_read_truncated_block_raises'],
    ['test_write_is_ascii'], ['test_write_read_roundtrip', DATA_FILES], ['test_stream_read_chunked', ['80', '160', '2880', '4096', '65536']],
    ['test_open_path_or_file'], ['test_write_refuses_non_ascii_comment'],
  ]);
  add('tests/test_properties.py', [
    ['test_int_roundtrip'], ['test_bool_roundtrip'], ['test_string_roundtrip'], ['test_float_roundtrip_small_range'],
    ['test_comment_never_changes_value'], ['test_header_roundtrip'], ['test_image_always_80_columns'], ['test_keyword_normalised'],
  ]);
  add('tests/test_verify.py', [
    ['test_minimal_header_is_valid'], ['test_missing_required_keyword'], ['test_string_values_are_not_checked'],
    ['test_verify_roundtrip_floats', ['0.0', '1.5', '-2.25', '3.14159', '1e-05', '2.5e+20', '6.02214076e+23', '-1.2345678901234568e-300']],
  ]);
  return t;
}

const TEST_SUITE = suite();

// ---------- the repository, in memory, and the agent's tools over it ----------

const original = new Map(Object.entries(PROJECT_FILES));
const repo = new Map(original);

function lineOf(file, needle) {
  const i = repo.get(file).split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`"${needle}" not in ${file}`);
  return i + 1;
}

function numbered(file, from = 1, to = Infinity) {
  const lines = repo.get(file).replace(/\n$/, '').split('\n');
  return lines.slice(from - 1, Math.min(to, lines.length)).map((l, i) => `${String(from + i).padStart(6)}\t${l}`).join('\n');
}

const tools = {
  read_file({ path: file, start_line, end_line }) {
    if (!repo.has(file)) return `Error: ${file} does not exist.`;
    return numbered(file, start_line ?? 1, end_line ?? Infinity);
  },
  edit_file({ path: file, old_str, new_str }) {
    const text = repo.get(file);
    const at = text.indexOf(old_str);
    if (at < 0 || text.indexOf(old_str, at + 1) >= 0) throw new Error(`edit_file: old_str must occur exactly once in ${file}`);
    repo.set(file, text.slice(0, at) + new_str + text.slice(at + old_str.length));
    const first = text.slice(0, at).split('\n').length;
    const last = first + new_str.replace(/\n$/, '').split('\n').length - 1;
    return `The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of ${file}:\n`
      + numbered(file, Math.max(1, first - 3), last + 3)
      + '\nReview the changes and make sure they are as expected. Edit the file again if necessary.';
  },
  grep({ pattern, path: under = '.', include }) {
    const re = new RegExp(pattern);
    const hits = [];
    for (const file of [...repo.keys()].sort()) {
      if (under !== '.' && !file.startsWith(under.replace(/\/$/, '') + '/')) continue;
      if (include && !file.endsWith(include.replace('*', ''))) continue;
      repo.get(file).split('\n').forEach((l, i) => { if (re.test(l)) hits.push(`${file}:${i + 1}:${l}`); });
    }
    return hits.length > 0 ? hits.join('\n') : 'No matches found.';
  },
};

// ---------- pytest, simulated over TEST_SUITE ----------

const WIDTH = 80;
function rule(ch, title = '') {
  if (!title) return ch.repeat(WIDTH);
  const side = Math.max(1, Math.floor((WIDTH - title.length - 2) / 2));
  const line = `${ch.repeat(side)} ${title} ${ch.repeat(side)}`;
  return line.length < WIDTH ? line + ch.repeat(WIDTH - line.length) : line;
}
const progress = (done, total) => `[${String(Math.floor((done * 100) / total)).padStart(3)}%]`;

function pytestHeader(collected, verbose) {
  return [
    rule('=', 'test session starts'),
    'platform linux -- Python 3.11.9, pytest-8.2.1, pluggy-1.5.0' + (verbose ? ' -- /home/dev/tinyfits/.venv/bin/python' : ''),
    ...(verbose ? ['cachedir: .pytest_cache'] : []),
    'hypothesis profile \'default\' -> database=DirectoryBasedExampleDatabase(PosixPath(\'/home/dev/tinyfits/.hypothesis/examples\'))',
    'rootdir: /home/dev/tinyfits',
    'configfile: pyproject.toml',
    'testpaths: tests',
    'plugins: hypothesis-6.102.4, cov-5.0.0',
    `${verbose ? 'collecting ... ' : ''}collected ${collected} item${collected === 1 ? '' : 's'}`,
    '',
  ];
}

/** The one-line reason in the short summary, cut to the terminal width as pytest does. */
function shortSummary(test, body) {
  const base = `FAILED ${test}`;
  const reason = body.split('\n').find((l) => l.startsWith('E '))?.replace(/^E\s+/, '') ?? '';
  if (base.length + 6 >= WIDTH) return base;
  const line = `${base} - ${reason}`;
  return line.length > WIDTH ? line.slice(0, WIDTH - 3) + '...' : line;
}

/** One pytest run: `failures` maps node ids to their FAILURES body; mode is verbose, quiet or default. */
function pytest({ select = () => true, failures = {}, mode = 'default', slow = [1.5, 3.5], durations }) {
  const tests = TEST_SUITE.filter(select);
  const failed = tests.filter((t) => t in failures);
  const out = mode === 'quiet' ? [] : pytestHeader(tests.length, mode === 'verbose');
  if (mode === 'verbose') {
    tests.forEach((t, i) => {
      const left = `${t} ${t in failures ? 'FAILED' : 'PASSED'}`;
      const right = progress(i + 1, tests.length);
      out.push(left + ' '.repeat(Math.max(1, WIDTH - left.length - right.length)) + right);
    });
  } else {
    // Dots: a line per test file by default, wrapped lines of dots with -q.
    let line = '';
    let file = '';
    const flush = (done) => {
      if (line) out.push(line + ' '.repeat(Math.max(1, WIDTH - line.length - 6)) + progress(done, tests.length));
      line = '';
    };
    tests.forEach((t, i) => {
      const f = t.split('::')[0];
      if (mode === 'default' && f !== file) { flush(i); line = f + ' '; file = f; }
      if (line.length >= WIDTH - 7) flush(i);
      line += t in failures ? 'F' : '.';
    });
    flush(tests.length);
  }
  if (failed.length > 0) {
    out.push('', rule('=', 'FAILURES'));
    for (const t of failed) out.push(rule('_', t.split('::').slice(1).join('::')), '', failures[t].trimEnd());
    out.push(rule('=', 'short test summary info'));
    for (const t of failed) out.push(shortSummary(t, failures[t]));
  } else if (mode !== 'quiet') {
    out.push('');
  }
  if (durations) {
    out.push(rule('=', `slowest ${durations.length} durations`));
    out.push(...durations.map(([test, lo, hi]) => `${seconds(lo, hi)}s call     ${test}`), '');
  }
  const passed = tests.length - failed.length;
  const counts = [failed.length ? `${failed.length} failed` : '', passed || !failed.length ? `${passed} passed` : ''].filter(Boolean).join(', ');
  const time = `in ${seconds(...slow)}s`;
  out.push(mode === 'quiet' ? `${counts} ${time}` : rule('=', `${counts} ${time}`));
  return out.join('\n');
}

const inFile = (file) => (t) => t.startsWith(file + '::');

// ---------- building the conversation ----------

const messages = [];
let toolCalls = 0;

/** One assistant message with one or more tool calls, each answered by a tool message. */
function act(thought, ...calls) {
  const withIds = calls.map((c) => ({ ...c, id: callId() }));
  messages.push({
    role: 'assistant',
    content: thought,
    tool_calls: withIds.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
  });
  for (const c of withIds) {
    toolCalls++;
    const output = typeof c.output === 'function' ? c.output() : c.output ?? tools[c.name](c.args);
    messages.push({ role: 'tool', tool_call_id: c.id, content: output });
  }
}
const bash = (command, output) => ({ name: 'bash', args: { command }, output });
const read = (file, start_line, end_line) => ({ name: 'read_file', args: { path: file, ...(start_line ? { start_line, end_line } : {}) } });
const grep = (pattern, under, include) => ({ name: 'grep', args: { pattern, path: under, ...(include ? { include } : {}) } });
const edit = (file, old_str, new_str) => ({ name: 'edit_file', args: { path: file, old_str, new_str } });
// ---------- the run: what the agent is told, and what it does ----------

const SYSTEM_PROMPT = `You are a software engineering agent working in a checked-out repository at /home/dev/tinyfits. You fix bugs and implement changes the way a careful senior engineer would: read before you edit, reproduce a failure before you fix it, keep changes small, and run the tests before you say you are done.

You can call these tools:

- bash(command: string): runs a command in a persistent bash shell in the repository root and returns stdout and stderr combined. Long-running commands time out after 300 seconds. Do not start interactive programs.
- read_file(path: string, start_line?: integer, end_line?: integer): returns the file with line numbers (like \`cat -n\`). Use start_line/end_line for large files.
- edit_file(path: string, old_str: string, new_str: string): replaces exactly one occurrence of old_str with new_str. Fails if old_str is missing or occurs more than once; include enough surrounding lines to make it unique. Indentation must match exactly.
- grep(pattern: string, path?: string, include?: string): searches file contents with a regular expression and returns path:line:text for every match.

Guidelines:
- Work on the current branch; do not commit, push, or rewrite history.
- Never weaken or delete a test to make it pass. If a test looks wrong, say so and explain why.
- Prefer the project's own conventions (error codes, docstrings, changelog format).
- When you are finished, reply with a short summary of the cause, the change, and how you verified it.`;

const TASK = `Ticket ABC-123: "Header writer emits floats other FITS readers reject"

Reported by the pipeline team: headers written by tinyfits 0.4.2 fail to open in cfitsio and astropy.
- \`Card("EXPTIME", 1e-05)\` is written as \`1e-05\`: lower-case exponent and no decimal point.
- Very small values crash the writer:
  CardFormatError: [E201] value -1.2345678901234568e-300 does not fit in 20 columns

I've pushed failing tests for this on the branch fix/ABC-123-float-format (tests/test_card.py::test_float, tests/test_card.py::test_float_exponent, tests/test_card.py::test_float_too_long and the new cases in tests/test_verify.py). Please make them pass without breaking anything else, and add a changelog entry. The format rules are in docs/format.md.`;

/** The lines pytest prints for one frame: its source up to the failing statement, then the error. */
function frame(file, defNeedle, failNeedle, { locals, extra = 0, error } = {}) {
  const lines = repo.get(file).split('\n');
  let start = lines.findIndex((l) => l.includes(defNeedle));
  while (start > 0 && lines[start - 1].trim() !== '') start--;
  const fail = lines.findIndex((l, i) => i >= start && l.includes(failNeedle));
  const out = locals ? [locals, ''] : [];
  for (let i = start; i <= fail + extra; i++) out.push((i === fail ? '>   ' : '    ') + lines[i]);
  if (error) {
    const indent = lines[fail].length - lines[fail].trimStart().length;
    out.push(...error.split('\n').map((l) => ('E' + ' '.repeat(3 + indent) + l).trimEnd()));
  }
  return { text: out.join('\n'), where: `${file}:${fail + 1}` };
}
const SHORT_SEP = '_ '.repeat(40).trimEnd();

/** A failed string comparison as pytest reports it. */
function stringMismatch(actual, expected) {
  return `AssertionError: assert '${actual}' == '${expected}'\n  \n  - ${expected}\n  + ${actual}`;
}

function cardAssertFailure(test, actual, expected, locals) {
  const f = test === 'test_float'
    ? frame('tests/test_card.py', 'def test_float():', 'assert card.image[10:30]', { error: stringMismatch(actual, expected) })
    : frame('tests/test_card.py', 'def test_float_exponent', 'assert Card("VAL", value)', { locals, error: stringMismatch(actual, expected) });
  return `${f.text}\n\n${f.where}: AssertionError`;
}

/** E201 raised while a card is built, seen from the test that built it. */
function tooWideFailure(testFile, testDef, testLine, value, locals) {
  const top = frame(testFile, testDef, testLine, { locals });
  const post = frame('tinyfits/card.py', 'def __post_init__', 'self._value_text = _format_value');
  const fmt = frame('tinyfits/card.py', 'def _format_value', 'return _format_float(value).rjust');
  const shown = repo.get('tinyfits/card.py').includes('repr(value).upper()') ? value.toUpperCase() : value;
  const last = frame('tinyfits/card.py', 'def _format_float', 'raise CardFormatError(', {
    locals: `value = ${value}`, extra: 3,
    error: `tinyfits.errors.CardFormatError: [E201] value ${shown} does not fit in 20 columns`,
  });
  return [
    `${top.text}\n\n${top.where}: `,
    SHORT_SEP,
    '<string>:6: in __init__\n    ???',
    `${post.where}: in __post_init__\n    self._value_text = _format_value(self.value)\n                       ^^^^^^^^^^^^^^^^^^^^^^^^^`,
    `${fmt.where}: in _format_value\n    return _format_float(value).rjust(VALUE_WIDTH)\n           ^^^^^^^^^^^^^^^^^^^^`,
    SHORT_SEP,
    '',
    `${last.text}\n\n${last.where}: CardFormatError`,
  ].join('\n');
}

function verifyIssueFailure(value, field) {
  const issue = `VerifyIssue(code=<ErrorCode.BAD_FIXED_FORMAT: 'E204'>, keyword='VAL', message="value field '${field}' is not a valid fixed-format float")`;
  const f = frame('tests/test_verify.py', 'def test_verify_roundtrip_floats', 'assert verify_header', {
    locals: `value = ${value}`,
    error: `assert [${issue}] == []\n  \n  Left contains one more item: ${issue}\n  \n  Full diff:\n  - []\n  + [\n  +     ${issue},\n  + ]`,
  });
  return `${f.text}\n\n${f.where}: AssertionError`;
}

const TINY = '-1.2345678901234568e-300';

function failuresBeforeFix() {
  return {
    'tests/test_card.py::test_float': cardAssertFailure('test_float', '               1e-05', '             1.0E-05'),
    'tests/test_card.py::test_float_exponent[1e-05-1.0E-05]': cardAssertFailure('x', '               1e-05', '             1.0E-05', "value = 1e-05, text = '1.0E-05'"),
    'tests/test_card.py::test_float_exponent[2.5e+20-2.5E+20]': cardAssertFailure('x', '             2.5e+20', '             2.5E+20', "value = 2.5e+20, text = '2.5E+20'"),
    'tests/test_card.py::test_float_exponent[6.02214076e+23-6.02214076E+23]': cardAssertFailure('x', '      6.02214076e+23', '      6.02214076E+23', "value = 6.02214076e+23, text = '6.02214076E+23'"),
    'tests/test_card.py::test_float_too_long': tooWideFailure('tests/test_card.py', 'def test_float_too_long', 'card = Card("TINY", value)', TINY),
    'tests/test_verify.py::test_verify_roundtrip_floats[1e-05]': verifyIssueFailure('1e-05', '               1e-05'),
    'tests/test_verify.py::test_verify_roundtrip_floats[2.5e+20]': verifyIssueFailure('2.5e+20', '             2.5e+20'),
    'tests/test_verify.py::test_verify_roundtrip_floats[6.02214076e+23]': verifyIssueFailure('6.02214076e+23', '      6.02214076e+23'),
    [`tests/test_verify.py::test_verify_roundtrip_floats[${TINY}]`]: tooWideFailure('tests/test_verify.py', 'def test_verify_roundtrip_floats', 'assert verify_header', TINY, `value = ${TINY}`),
  };
}

const PIP_PACKAGES = [
  // name, version, wheel size (kB), pulled in by
  ['pytest', '8.2.1', 339.6, 'tinyfits==0.4.2'], ['pytest-cov', '5.0.0', 21.3, 'tinyfits==0.4.2'],
  ['hypothesis', '6.102.4', 461.9, 'tinyfits==0.4.2'], ['ruff', '0.4.4', 8791.2, 'tinyfits==0.4.2'],
  ['mypy', '1.10.0', 12623.5, 'tinyfits==0.4.2'], ['iniconfig', '2.0.0', 5.9, 'pytest>=7.4->tinyfits==0.4.2'],
  ['packaging', '24.0', 53.5, 'pytest>=7.4->tinyfits==0.4.2'], ['pluggy', '1.5.0', 20.6, 'pytest>=7.4->tinyfits==0.4.2'],
  ['coverage', '7.5.1', 232.7, 'coverage[toml]>=5.2.1->pytest-cov>=4.1->tinyfits==0.4.2'],
  ['attrs', '23.2.0', 60.8, 'hypothesis>=6.90->tinyfits==0.4.2'], ['sortedcontainers', '2.4.0', 29.6, 'hypothesis>=6.90->tinyfits==0.4.2'],
  ['typing-extensions', '4.11.0', 34.6, 'mypy>=1.8->tinyfits==0.4.2'], ['mypy-extensions', '1.0.0', 4.7, 'mypy>=1.8->tinyfits==0.4.2'],
];

function pipInstall() {
  const out = [
    'Obtaining file:///home/dev/tinyfits',
    '  Installing build dependencies ... done',
    '  Checking if build backend supports build_editable ... done',
    '  Getting requirements to build editable ... done',
    '  Preparing editable metadata (pyproject.toml) ... done',
  ];
  for (const [name, version, kb, from] of PIP_PACKAGES) {
    const file = `${name.replace(/-/g, '_')}-${version}-py3-none-any.whl`;
    const size = kb >= 1000 ? `${(kb / 1000).toFixed(1)} MB` : `${kb} kB`;
    const done = kb >= 1000 ? `${(kb / 1000).toFixed(1)}/${(kb / 1000).toFixed(1)} MB` : `${kb}/${kb} kB`;
    const spec = { pytest: '>=7.4', 'pytest-cov': '>=4.1', hypothesis: '>=6.90', ruff: '>=0.4', mypy: '>=1.8' }[name] ?? '';
    out.push(`Collecting ${name}${from.startsWith('tinyfits') ? spec : ''} (from ${from})`);
    out.push(`  Downloading ${file}.metadata (${(2 + rand() * 9).toFixed(1)} kB)`);
    out.push(`  Downloading ${file} (${size})`);
    out.push(`     ${'━'.repeat(40)} ${done} ${(3 + rand() * 20).toFixed(1)} MB/s eta 0:00:00`);
  }
  out.push(
    'Building wheels for collected packages: tinyfits',
    '  Building editable for tinyfits (pyproject.toml) ... done',
    `  Created wheel for tinyfits: filename=tinyfits-0.4.2-0.editable-py3-none-any.whl size=3418 sha256=${hex(64)}`,
    `  Stored in directory: /tmp/pip-ephem-wheel-cache-${hex(8)}/wheels/5c/1f/${hex(60)}`,
    'Successfully built tinyfits',
    `Installing collected packages: ${PIP_PACKAGES.map((p) => p[0]).reverse().join(', ')}, tinyfits`,
    `Successfully installed ${[...PIP_PACKAGES.map((p) => `${p[0]}-${p[1]}`), 'tinyfits-0.4.2'].sort().join(' ')}`,
    '',
    '[notice] A new release of pip is available: 24.0 -> 24.1',
    '[notice] To update, run: pip install --upgrade pip',
  );
  return out.join('\n');
}

function hex(n) {
  return Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');
}

/** `git diff` of the in-memory repository against its checked-out state. */
function gitDiff() {
  const out = [];
  for (const file of [...repo.keys()].sort()) {
    if (repo.get(file) === original.get(file)) continue;
    out.push(`diff --git a/${file} b/${file}`, `index ${hex(7)}..${hex(7)} 100644`, `--- a/${file}`, `+++ b/${file}`);
    out.push(...gitDiff.forFile(file));
  }
  return out.join('\n');
}
gitDiff.forFile = (file) => unifiedHunks(original.get(file).replace(/\n$/, '').split('\n'), repo.get(file).replace(/\n$/, '').split('\n'));

/** Line diff by longest common subsequence, grouped into hunks with three lines of context. */
function unifiedHunks(a, b) {
  const lcs = Array.from({ length: a.length + 1 }, () => new Int32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) ops.push({ t: ' ', s: a[i], i: i++, j: j++ });
    else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push({ t: '-', s: a[i], i: i++, j });
    else ops.push({ t: '+', s: b[j], i, j: j++ });
  }
  const changed = ops.map((o, k) => (o.t === ' ' ? -1 : k)).filter((k) => k >= 0);
  const hunks = [];
  for (const k of changed) {
    const last = hunks[hunks.length - 1];
    if (last && k - last[1] <= 7) last[1] = k;
    else hunks.push([k, k]);
  }
  const out = [];
  for (const [from, to] of hunks) {
    const part = ops.slice(Math.max(0, from - 3), Math.min(ops.length, to + 4));
    const oldLen = part.filter((o) => o.t !== '+').length;
    const newLen = part.filter((o) => o.t !== '-').length;
    out.push(`@@ -${part[0].i + 1},${oldLen} +${part[0].j + 1},${newLen} @@`);
    out.push(...part.map((o) => o.t + o.s));
  }
  return out;
}

function gitStatus() {
  const modified = [...repo.keys()].sort().filter((f) => repo.get(f) !== original.get(f));
  if (modified.length === 0) return 'On branch fix/ABC-123-float-format\nYour branch is up to date with \'origin/fix/ABC-123-float-format\'.\n\nnothing to commit, working tree clean';
  return [
    'On branch fix/ABC-123-float-format',
    "Your branch is up to date with 'origin/fix/ABC-123-float-format'.",
    '',
    'Changes not staged for commit:',
    '  (use "git add <file>..." to update what will be committed)',
    '  (use "git restore <file>..." to discard changes in working directory)',
    ...modified.map((f) => `\tmodified:   ${f}`),
    '',
    'no changes added to commit (use "git add" and/or "git commit -a")',
  ].join('\n');
}

function fileListing() {
  const files = [...repo.keys(), ...EXTRA_PATHS].map((f) => './' + f).sort();
  return files.join('\n');
}

const EXTRA_PATHS = [
  '.github/workflows/ci.yml', '.gitignore', '.pre-commit-config.yaml', 'LICENSE', 'docs/index.md', 'docs/cli.md',
  'tinyfits/checksum.py', 'tinyfits/cli.py', 'tinyfits/continue_cards.py', 'tinyfits/io.py', 'tinyfits/py.typed',
  'tests/__init__.py', 'tests/test_checksum.py', 'tests/test_cli.py', 'tests/test_compat.py', 'tests/test_continue.py',
  'tests/test_errors.py', 'tests/test_header.py', 'tests/test_io.py', 'tests/test_properties.py',
  ...DATA_FILES.map((f) => 'tests/data/' + f), 'tests/data/reference_cards.txt',
];

/** What a real instrument header looks like: the HST file in the test data, folded to 80 columns. */
const HST_HEADER = [
  ['SIMPLE', 'T', 'conforms to FITS standard'], ['BITPIX', '-32', 'array data type'], ['NAXIS', '2', 'number of array dimensions'],
  ['NAXIS1', '4096', ''], ['NAXIS2', '2051', ''], ['EXTEND', 'T', ''], ['TELESCOP', "'HST     '", 'telescope used to acquire data'],
  ['INSTRUME', "'WFC3    '", 'identifier for instrument used to acquire data'], ['EXPTIME', '1.1999999E+02', 'exposure duration (seconds)--calculated'],
  ['PHOTFLAM', '1.5281811E-19', 'inverse sensitivity, ergs/cm2/Ang/electron'], ['PHOTZPT', '-2.1100000E+01', 'ST magnitude zero point'],
  ['PHOTPLAM', '4.7721846E+03', 'Pivot wavelength (Angstroms)'], ['CRVAL1', '1.506355833333E+02', 'right ascension at reference pixel'],
  ['CRVAL2', '2.205333333333E+00', 'declination at reference pixel'],
].map(([k, v, c]) => {
  const value = v.startsWith("'") ? v.padEnd(20) : v.padStart(20);
  return (k.padEnd(8) + '= ' + value + (c ? ' / ' + c : '')).slice(0, 80).padEnd(80);
}).join('\n');

function story() {
  act('I\'ll start by getting oriented: branch, recent history and the layout of the repository.',
    bash('git status && git log --oneline -5', () => gitStatus() + '\n' + [
      '9f3c2e1 (HEAD -> fix/ABC-123-float-format, origin/fix/ABC-123-float-format) ABC-123: add failing tests for float card formatting',
      '4b81d07 (tag: v0.4.2, origin/main, main) Release 0.4.2',
      'c2a9e55 Header.fromstring: skip blank cards instead of raising E203',
      '71d0f3a verify_header: report every missing required keyword',
      'e05b6c4 CI: test on Python 3.12',
    ].join('\n')));
  act(null, bash("find . -path ./.git -prune -o -path ./.venv -prune -o -type f -print | sort", fileListing));
  act(null, read('README.md'), read('pyproject.toml'));
  act('Let me create a virtual environment and install the package with its test extras.',
    bash("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]'", pipInstall));
  act('Now the whole suite, verbose, so I can see exactly which tests fail.',
    bash('. .venv/bin/activate && pytest -v', () => pytest({ mode: 'verbose', failures: failuresBeforeFix(), slow: [4, 6] })));
  act('Nine failures, all about floats: the exponent is written in lower case without a decimal point, and `-1.2345678901234568e-300` overflows the 20-column value field (E201). The verify failures look like the same formatting problem seen through `verify_header`. Let me read the card module and the error codes.',
    read('tinyfits/card.py'), read('tinyfits/errors.py'));
  act(null, read('tests/test_card.py'));
  act(null, grep('_format_float|_format_value', 'tinyfits'));
  act('`_format_float` is just `repr(value)`. Is `repr` used to write values anywhere else?', grep('repr\\(', '.', '*.py'));
  act('Only there. And where does E201 come from and get documented?', grep('E201|VALUE_TOO_WIDE', '.'));
  act(null, bash(". .venv/bin/activate && pytest 'tests/test_card.py::test_float' -vv", () => pytest({
    select: (t) => t === 'tests/test_card.py::test_float', mode: 'verbose', slow: [0.03, 0.09],
    failures: { 'tests/test_card.py::test_float': failuresBeforeFix()['tests/test_card.py::test_float'] },
  })));
  act('Let me look at what `repr` produces for the values in the ticket and the tests.',
    bash(`. .venv/bin/activate && python -c "
for v in (1e-05, 2.5e20, 6.02214076e23, ${TINY}, 0.1, 1/3, 1e100):
    r = repr(v)
    print(f'{r:>26} {len(r):>3}')
"`, ['                     1e-05   5', '                   2.5e+20   7', '            6.02214076e+23  14',
      '  -1.2345678901234568e-300  24', '                       0.1   3', '        0.3333333333333333  18', '                    1e+100   6'].join('\n')));
  act('So the tiny value needs 24 characters as `repr` writes it. Now the verify side and the shared float samples.',
    read('tests/test_verify.py'), read('tests/conftest.py'));
  act(null, read('tinyfits/verify.py'));
  act('The ticket points at docs/format.md for the rules.', read('docs/format.md'));
  act(null, bash('git log --oneline -8 -- tinyfits/card.py tests/test_card.py', () => [
    '9f3c2e1 ABC-123: add failing tests for float card formatting',
    '8e0d4a2 Card: validate values in __post_init__ (E201/E202 early)',
    '3a7f9b0 Escape embedded quotes in string values',
    '55c1e8d Add Card.fromstring with comment splitting',
    'b9d20f4 First version of Card',
  ].join('\n')));
  act(null, bash('git show --stat HEAD', () => [
    'commit 9f3c2e1b7d4e0a65c1f8e2b9a03d7c4f5e6b8a21',
    'Author: Priya Raman <priya.raman@example.org>',
    'Date:   Tue May 14 16:02:41 2024 +0200',
    '',
    '    ABC-123: add failing tests for float card formatting',
    '',
    '    cfitsio rejects EXPTIME = 1e-05 written by tinyfits; tiny values crash',
    '    with E201. The tests describe the expected output.',
    '',
    ' tests/conftest.py    | 13 +++++++++++++',
    ' tests/test_card.py   | 26 ++++++++++++++++++++++++++',
    ' tests/test_verify.py |  5 +++++',
    ' 3 files changed, 44 insertions(+)',
  ].join('\n')));
  act(null, bash("head -c 1120 tests/data/hst_wfc3.hdr | fold -w 80", HST_HEADER));
  act('Real instrument headers use an upper-case `E` with a signed exponent, and always a decimal point. The smallest change would be to upper-case what `repr` returns; let me try that first and see what is left.',
    edit('tinyfits/card.py', '    text = repr(value)\n    if len(text) > VALUE_WIDTH:', '    text = repr(value).upper()\n    if len(text) > VALUE_WIDTH:'));
  const cardFile = inFile('tests/test_card.py');
  const attemptOne = () => ({
    'tests/test_card.py::test_float': cardAssertFailure('test_float', '               1E-05', '             1.0E-05'),
    'tests/test_card.py::test_float_exponent[1e-05-1.0E-05]': cardAssertFailure('x', '               1E-05', '             1.0E-05', "value = 1e-05, text = '1.0E-05'"),
    'tests/test_card.py::test_float_too_long': tooWideFailure('tests/test_card.py', 'def test_float_too_long', 'card = Card("TINY", value)', TINY),
  });
  act(null, bash('. .venv/bin/activate && pytest tests/test_card.py -q', () => pytest({ select: cardFile, mode: 'quiet', failures: attemptOne(), slow: [0.08, 0.2] })));
  act('Upper-casing fixed `2.5E+20` and `6.02214076E+23`, but `1E-05` still has no decimal point, and the tiny value still overflows. Dropping significant digits with the `G` format is the way to make it fit; let me see how many digits fit in 20 columns.',
    bash(`. .venv/bin/activate && python -c "
v = ${TINY}
for d in range(16, 11, -1):
    s = f'{v:.{d}G}'
    print(d, s, len(s))
"`, ['16 -1.234567890123457E-300 23', '15 -1.23456789012346E-300 22', '14 -1.2345678901235E-300 21', '13 -1.234567890123E-300 20', '12 -1.23456789012E-300 19'].join('\n')));
  act('`G` with 16 digits would also round values that `repr` keeps exact, so I want `repr` first and `G` only as the fallback:',
    bash(`. .venv/bin/activate && python -c "print(f'{0.1+0.2:.16G}', repr(0.1+0.2), f'{1e-05:.16G}', f'{1/3:.16G}')"`, '0.3 0.30000000000000004 1E-05 0.3333333333333333'));
  act('Right: `.16G` turns 0.30000000000000004 into 0.3, which would break round-tripping. Plan: start from `repr` (shortest exact text), normalise it to fixed format (decimal point; `E`, sign, at least two exponent digits), and only if it is wider than 20 columns drop digits until it fits. `nan`/`inf` cannot be written in a fixed-format card, so they get E202 instead of being written as text no reader accepts.',
    edit('tinyfits/card.py', `def _format_float(value: float) -> str:
    text = repr(value).upper()
    if len(text) > VALUE_WIDTH:
        raise CardFormatError(
            ErrorCode.VALUE_TOO_WIDE,
            f"value {text} does not fit in {VALUE_WIDTH} columns",
        )
    return text
`, `def _normalise_float(text: str) -> str:
    """Puts Python's float text in fixed format: a decimal point; 'E', a sign and 2+ digits."""
    mantissa, _, exponent = text.upper().partition("E")
    if mantissa.lstrip("+-") in ("INF", "NAN"):
        raise CardFormatError(
            ErrorCode.UNSUPPORTED_TYPE, f"{text} cannot be written in a fixed-format card"
        )
    if "." not in mantissa:
        mantissa += ".0"
    if not exponent:
        return mantissa
    sign = "-" if exponent.startswith("-") else "+"
    return f"{mantissa}E{sign}{exponent.lstrip('+-').rjust(2, '0')}"


def _format_float(value: float) -> str:
    # repr() is the shortest text that reads back as the same float; use it whenever it fits.
    text = _normalise_float(repr(value))
    if len(text) <= VALUE_WIDTH:
        return text
    # Too wide for the value field: drop significant digits until it fits (ABC-123).
    for digits in range(16, 0, -1):
        text = _normalise_float(f"{value:.{digits}G}")
        if len(text) <= VALUE_WIDTH:
            return text
    raise CardFormatError(
        ErrorCode.VALUE_TOO_WIDE,
        f"value {value!r} does not fit in {VALUE_WIDTH} columns",
    )
`));
  act(null, bash('. .venv/bin/activate && pytest tests/test_card.py -q', () => pytest({ select: cardFile, mode: 'quiet', slow: [0.08, 0.2] })));
  act('All card tests pass. A quick look at the cards the ticket mentions:',
    bash(`. .venv/bin/activate && python -c "
from tinyfits import Card
for v in (1e-05, 2.5e20, ${TINY}, 0.30000000000000004, 1e100):
    print(repr(Card('VAL', v, 'note').image))
"`, () => [['1.0E-05'], ['2.5E+20'], ['-1.234567890123E-300'], ['0.30000000000000004'], ['1.0E+100']]
      .map(([v]) => `'${('VAL     = ' + v.padStart(20) + ' / note').padEnd(80)}'`).join('\n')));
  const verifyTiny = `tests/test_verify.py::test_verify_roundtrip_floats[${TINY}]`;
  act('Now the full suite.', bash('. .venv/bin/activate && pytest -q', () => pytest({ mode: 'quiet', slow: [2.5, 4],
    failures: { [verifyTiny]: verifyIssueFailure(TINY, '-1.234567890123E-300') } })));
  act('One left, and it is a different one: the card is now written as `-1.234567890123E-300`, but `verify_card` rejects it with E204. Its regular expression only allows two exponent digits.',
    grep('_FIXED_FLOAT_RE', 'tinyfits'));
  act(null, bash(String.raw`. .venv/bin/activate && python -c "
import re
old = re.compile(r'^ *[+-]?\d+\.\d*(E[+-]\d{2})?$')
new = re.compile(r'^ *[+-]?\d+\.\d*(E[+-]\d{2,3})?$')
for s in ('1.0E-05', '-1.234567890123E-300', '1.0E+100', '1.0E-5', '1e-05', '1.5'):
    print(f'{s:>22}', bool(old.match(s)), bool(new.match(s)))
"`, ['               1.0E-05 True True', '  -1.234567890123E-300 False True', '              1.0E+100 False True',
      '                1.0E-5 False False', '                 1e-05 False False', '                   1.5 True True'].join('\n')));
  act('docs/format.md asks for "at least two digits"; doubles need at most three, so `\\d{2,3}` is exact.',
    edit('tinyfits/verify.py', String.raw`_FIXED_FLOAT_RE = re.compile(r"^ *[+-]?\d+\.\d*(E[+-]\d{2})?$")`,
      String.raw`# At least two exponent digits; doubles need up to three (1.0E-300).
_FIXED_FLOAT_RE = re.compile(r"^ *[+-]?\d+\.\d*(E[+-]\d{2,3})?$")`));
  act(null, bash('. .venv/bin/activate && pytest tests/test_verify.py -q', () => pytest({ select: inFile('tests/test_verify.py'), mode: 'quiet', slow: [0.05, 0.15] })));
  act('Both sides agree now. The whole suite again, verbose:', bash('. .venv/bin/activate && pytest -v', () => pytest({ mode: 'verbose', slow: [4, 6] })));
  act('All 305 pass. Next, the behaviour change for non-finite values. With the fix:',
    bash(`. .venv/bin/activate && python -c "from tinyfits import Card; Card('VAL', float('nan'))"`, () => {
      const post = lineOf('tinyfits/card.py', 'self._value_text = _format_value');
      const fmt = lineOf('tinyfits/card.py', 'return _format_float(value).rjust');
      const norm = lineOf('tinyfits/card.py', 'text = _normalise_float(repr(value))');
      const raise = lineOf('tinyfits/card.py', 'if mantissa.lstrip("+-") in ("INF", "NAN"):') + 1;
      return [
        'Traceback (most recent call last):',
        '  File "<string>", line 1, in <module>',
        '  File "<string>", line 6, in __init__',
        `  File "/home/dev/tinyfits/tinyfits/card.py", line ${post}, in __post_init__`,
        '    self._value_text = _format_value(self.value)',
        '                       ^^^^^^^^^^^^^^^^^^^^^^^^^',
        `  File "/home/dev/tinyfits/tinyfits/card.py", line ${fmt}, in _format_value`,
        '    return _format_float(value).rjust(VALUE_WIDTH)',
        '           ^^^^^^^^^^^^^^^^^^^^',
        `  File "/home/dev/tinyfits/tinyfits/card.py", line ${norm}, in _format_float`,
        '    text = _normalise_float(repr(value))',
        '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
        `  File "/home/dev/tinyfits/tinyfits/card.py", line ${raise}, in _normalise_float`,
        '    raise CardFormatError(',
        'tinyfits.errors.CardFormatError: [E202] nan cannot be written in a fixed-format card',
      ].join('\n');
    }));
  act('And before the fix, for comparison:',
    bash(`git stash -q && . .venv/bin/activate && python -c "from tinyfits import Card; print(repr(Card('VAL', float('nan')).image))"; git stash pop -q && git status --short`,
      () => `'${('VAL     = ' + 'nan'.padStart(20)).padEnd(80)}'\n M tinyfits/card.py\n M tinyfits/verify.py`));
  act('Before, `nan` was silently written as `nan`, which is exactly the kind of card cfitsio rejects, so raising E202 is the better behaviour. I\'ll pin both edge cases with regression tests next to the ticket\'s tests.',
    edit('tests/test_card.py', `    assert math.isclose(Card.fromstring(card.image).value, value, rel_tol=1e-12)
`, `    assert math.isclose(Card.fromstring(card.image).value, value, rel_tol=1e-12)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_float_not_finite_is_rejected(value):
    with pytest.raises(CardFormatError) as info:
        Card("VAL", value)
    assert info.value.code is ErrorCode.UNSUPPORTED_TYPE


@pytest.mark.parametrize(
    "value", [-1.2345678901234568e-300, 1.7976931348623157e308, -2.2250738585072014e-308]
)
def test_float_never_spills_into_comment(value):
    card = Card("VAL", value, "a comment")
    image = Card("VAL", value, "a comment").image
    assert image[30:33] == " / "
    assert math.isclose(Card.fromstring(image).value, value, rel_tol=1e-12)
`));
  const at = TEST_SUITE.indexOf('tests/test_card.py::test_float_too_long') + 1;
  TEST_SUITE.splice(at, 0,
    ...['nan', 'inf', '-inf'].map((p) => `tests/test_card.py::test_float_not_finite_is_rejected[${p}]`),
    ...[TINY, '1.7976931348623157e+308', '-2.2250738585072014e-308'].map((p) => `tests/test_card.py::test_float_never_spills_into_comment[${p}]`));
  const floatTests = (t) => cardFile(t) && t.includes('float');
  act(null, bash(". .venv/bin/activate && pytest tests/test_card.py -q -k float", () => pytest({
    select: floatTests, mode: 'quiet', slow: [0.05, 0.12],
  }).replace(/(\d+ passed)/, `$1, ${TEST_SUITE.filter((t) => cardFile(t) && !floatTests(t)).length} deselected`)));
  act(null, bash('. .venv/bin/activate && ruff check tinyfits tests', () => {
    const line = lineOf('tests/test_card.py', 'card = Card("VAL", value, "a comment")');
    return [
      `tests/test_card.py:${line}:5: F841 Local variable \`card\` is assigned to but never used`,
      '   |',
      `${String(line - 1).padStart(2)} | def test_float_never_spills_into_comment(value):`,
      `${String(line).padStart(2)} |     card = Card("VAL", value, "a comment")`,
      '   |     ^^^^ F841',
      `${String(line + 1).padStart(2)} |     image = Card("VAL", value, "a comment").image`,
      `${String(line + 2).padStart(2)} |     assert image[30:33] == " / "`,
      '   |',
      '   = help: Remove assignment to unused variable `card`',
      '',
      'Found 1 error.',
      'No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).',
    ].join('\n');
  }));
  act('A leftover line in my new test; removing it.',
    edit('tests/test_card.py', '    card = Card("VAL", value, "a comment")\n    image = Card("VAL", value, "a comment").image\n', '    image = Card("VAL", value, "a comment").image\n'));
  act(null, bash('. .venv/bin/activate && ruff check tinyfits tests && ruff format --check tinyfits tests', 'All checks passed!\n21 files already formatted'));
  act(null, bash('. .venv/bin/activate && mypy tinyfits', 'Success: no issues found in 9 source files'));
  act('Type checks pass. Does the shrinking loop cost anything noticeable on the normal path?',
    bash(`. .venv/bin/activate && python -m timeit -s "from tinyfits.card import _format_float" "_format_float(0.1)" && python -m timeit -s "from tinyfits.card import _format_float" "_format_float(${TINY})"`,
      () => `500000 loops, best of 5: ${(0.6 + rand() * 0.1).toFixed(3)} usec per loop\n50000 loops, best of 5: ${(5.1 + rand() * 0.4).toFixed(2)} usec per loop`));
  act('Under a microsecond for ordinary values; the fallback only runs for the rare wide ones. Now `Header`, which rebuilds cards in `__setitem__`, and the public API:', read('tinyfits/header.py'), read('tinyfits/__init__.py'));
  act(null, bash(`. .venv/bin/activate && python -c "
from tinyfits import Card, Header, verify_header
h = Header([Card('SIMPLE', True), Card('BITPIX', -64), Card('NAXIS', 0)])
h['EXPTIME'] = 1e-05
h['TINY'] = ${TINY}
print(repr(h))
back = Header.fromstring(h.tostring())
print(back['EXPTIME'], back['TINY'], verify_header(back))
"`, () => [
    `SIMPLE  = ${'T'.padStart(20)}`, `BITPIX  = ${'-64'.padStart(20)}`, `NAXIS   = ${'0'.padStart(20)}`,
    `EXPTIME = ${'1.0E-05'.padStart(20)}`, `TINY    = ${'-1.234567890123E-300'.padStart(20)}`,
    '1e-05 -1.234567890123e-300 []',
  ].join('\n')));
  act(null, bash('. .venv/bin/activate && pytest -q --cov=tinyfits --cov-report=term-missing tests/test_card.py tests/test_verify.py', () => {
    const run = pytest({ select: (t) => cardFile(t) || inFile('tests/test_verify.py')(t), mode: 'quiet', slow: [0.3, 0.6] }).split('\n');
    const summary = run.pop();
    const miss = (needle, n = 0) => lineOf('tinyfits/card.py', needle) + n;
    const cardMissing = [
      miss('ErrorCode.UNTERMINATED_STRING') - 1,
      miss('raise CardFormatError(ErrorCode.UNPARSABLE_VALUE'),
      miss('f"value {value!r} does not fit') - 2,
      miss('ErrorCode.CARD_TOO_LONG') - 1,
    ].sort((x, y) => x - y).join(', ');
    return [...run, '',
      '---------- coverage: platform linux, python 3.11.9-final-0 ----------',
      'Name                   Stmts   Miss  Cover   Missing',
      '----------------------------------------------------',
      'tinyfits/__init__.py       5      0   100%',
      `tinyfits/card.py         101      4    96%   ${cardMissing}`,
      'tinyfits/errors.py        27      0   100%',
      'tinyfits/header.py        41     21    49%   19, 22, 25-28, 31-35, 38, 41-43, 48-57',
      'tinyfits/verify.py        32      0   100%',
      '----------------------------------------------------',
      'TOTAL                    206     25    88%',
      '',
      summary,
    ].join('\n');
  }));
  act(null, bash('. .venv/bin/activate && pytest tests/test_header.py tests/test_io.py tests/test_compat.py -q', () => pytest({
    select: (t) => ['tests/test_header.py', 'tests/test_io.py', 'tests/test_compat.py'].some((f) => inFile(f)(t)), mode: 'quiet', slow: [0.5, 1.1],
  })));
  act('Header, I/O and the reference-writer comparisons are fine. Changelog next.', read('CHANGELOG.md'));
  act(null, edit('CHANGELOG.md', '## Unreleased\n', `## Unreleased

- Floats are written in FITS fixed format: an upper-case exponent with a sign and at least two
  digits, and always a decimal point (\`1e-05\` is now written as \`1.0E-05\`). Values too wide for
  the 20-column value field are written with fewer significant digits instead of raising E201.
  (ABC-123)
- \`verify_card\` accepts three-digit exponents such as \`-1.234567890123E-300\`.
- Writing \`nan\` or \`inf\` raises E202; they used to be written as \`nan\`/\`inf\`, which other
  readers reject.
`));
  act('Final check: the whole suite, verbose, with the slowest tests listed.', bash('. .venv/bin/activate && pytest -v --durations=5', () => pytest({ mode: 'verbose', slow: [4, 6], durations: [
    ['tests/test_properties.py::test_header_roundtrip', 1.2, 1.6], ['tests/test_properties.py::test_string_roundtrip', 0.6, 0.9],
    ['tests/test_properties.py::test_float_roundtrip_small_range', 0.4, 0.6], ['tests/test_io.py::test_stream_read_chunked[80]', 0.2, 0.3],
    ['tests/test_cli.py::test_dump[hst_wfc3.hdr]', 0.1, 0.2],
  ] })));
  act(null, bash('git diff --stat', () => {
    const changed = [...repo.keys()].sort().filter((f) => repo.get(f) !== original.get(f));
    const rows = changed.map((f) => {
      const lines = gitDiff.forFile(f);
      const plus = lines.filter((l) => l.startsWith('+')).length;
      const minus = lines.filter((l) => l.startsWith('-')).length;
      return { f, plus, minus };
    });
    const width = Math.max(...rows.map((r) => r.f.length));
    const body = rows.map((r) => ` ${r.f.padEnd(width)} | ${String(r.plus + r.minus).padStart(2)} ${'+'.repeat(r.plus)}${'-'.repeat(r.minus)}`);
    const plus = rows.reduce((n, r) => n + r.plus, 0);
    const minus = rows.reduce((n, r) => n + r.minus, 0);
    return [...body, ` ${rows.length} files changed, ${plus} insertions(+), ${minus} deletions(-)`].join('\n');
  }));
  act(null, bash('git diff', gitDiff));
  act(null, bash('git status', gitStatus));
  messages.push({
    role: 'assistant',
    content: `ABC-123 is fixed; the full suite passes (${TEST_SUITE.length} tests, including the 9 that failed at the start).

**Cause.** \`tinyfits/card.py::_format_float\` wrote \`repr(value)\` as is. That gives a lower-case exponent and sometimes no decimal point (\`1e-05\`), which cfitsio and astropy reject, and it raised E201 whenever \`repr\` needed more than the 20-column value field (\`-1.2345678901234568e-300\` is 24 characters).

**Change.**
- \`tinyfits/card.py\`: new \`_normalise_float\` turns Python's float text into fixed format (a decimal point; \`E\`, a sign and at least two exponent digits). \`_format_float\` uses the exact \`repr\` whenever it fits, and otherwise drops significant digits until it fits, so \`-1.2345678901234568e-300\` is written as \`-1.234567890123E-300\`. E201 is now only raised if nothing fits, which cannot happen for finite doubles.
- \`tinyfits/verify.py\`: \`_FIXED_FLOAT_RE\` accepted only two exponent digits, so \`verify_header\` flagged valid cards such as \`-1.234567890123E-300\` with E204. It now accepts two or three.
- Behaviour change: \`nan\` and \`inf\` raise E202 instead of being written as \`nan\`/\`inf\`. No FITS reader accepts those cards, so writing them silently was a bug too.
- \`tests/test_card.py\`: regression tests for non-finite values and for the widest doubles (they must not spill into the comment and must read back within 1e-12).
- \`CHANGELOG.md\`: an entry under Unreleased.

**Verified** with \`pytest -v\` (all ${TEST_SUITE.length} pass), \`ruff check\`, \`ruff format --check\` and \`mypy\`. I also read a header back with \`Header.fromstring\`, and the 13-digit fallback costs about 5 µs per wide value; ordinary values stay under 1 µs.

Nothing is committed; the changes are unstaged on \`fix/ABC-123-float-format\`.`,
  });
}

// ---------- write it ----------

messages.push({ role: 'system', content: SYSTEM_PROMPT });
messages.push({ role: 'user', content: TASK });
story();
const json = JSON.stringify({ model: 'gpt-4o', messages }, null, 2) + '\n';
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, json);
process.stdout.write(`${path.relative(process.cwd(), OUT)}: ${messages.length} messages, ${toolCalls} tool calls, ${(Buffer.byteLength(json) / 1024).toFixed(1)} KB\n`);
