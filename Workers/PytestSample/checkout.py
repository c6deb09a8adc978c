"""The checkout summary of a small shop, as its UI code lays it out: the strings, the number format, the total's
alignment and whether the total's label fits its column. Two real defects live here (see README.md)."""

import unicodedata

STRINGS = {
    "en": {"total": "Total", "items": "{n} items", "checkout": "Checkout"},
    "de": {"total": "Gesamtbetrag inkl. MwSt.", "items": "{n} Artikel", "checkout": "Zur Kasse"},
    "fr": {"total": "Total TTC", "items": "{n} articles", "checkout": "Commander"},
    "ar": {"total": "المجموع", "items": "{n} عناصر", "checkout": "الدفع"},
    "he": {"total": "סה״כ", "items": "{n} פריטים", "checkout": "לתשלום"},
    "ja": {"total": "合計", "items": "{n} 点", "checkout": "購入手続き"},
}

# Decimal and grouping separators per language.
SEPARATORS = {"en": (".", ","), "de": (",", "."), "fr": (",", "\u202f"), "ar": ("٫", "٬"), "he": (".", ","),
              "ja": (".", ",")}

# Average advance of a glyph in the label's font, in points (CJK glyphs are full-width).
GLYPH_WIDTH = 7.5
WIDE_GLYPH_WIDTH = 14.0


def language(locale):
    return locale.split("-")[0].lower()


def string(locale, key):
    return STRINGS.get(language(locale), STRINGS["en"])[key]


def text_direction(text):
    """The direction of a text by its first strong character (Unicode bidi classes), as a layout engine finds it."""
    for ch in text:
        bidi = unicodedata.bidirectional(ch)
        if bidi in ("R", "AL"):
            return "rtl"
        if bidi == "L":
            return "ltr"
    return "ltr"


def format_amount(value, locale):
    decimal, group = SEPARATORS.get(language(locale), (".", ","))
    whole, cents = f"{value:,.2f}".split(".")
    return whole.replace(",", group) + decimal + cents


def total_alignment(locale):
    """Where the total sits in its row. DEFECT: hard-coded for left-to-right layouts."""
    return "right"


def label_width(text):
    return sum(WIDE_GLYPH_WIDTH if unicodedata.east_asian_width(ch) in ("W", "F") else GLYPH_WIDTH for ch in text)


def label_column(window_width):
    """The label column takes 40 % of the window, at most 240 points. DEFECT: no wrapping or truncation below that."""
    return min(240.0, window_width * 0.4)
