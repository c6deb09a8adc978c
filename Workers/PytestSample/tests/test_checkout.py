import checkout


def test_total_follows_reading_direction(locale):
    label = checkout.string(locale, "total")
    expected = "left" if checkout.text_direction(label) == "rtl" else "right"
    assert checkout.total_alignment(locale) == expected, f"the total of a {checkout.text_direction(label)} layout"


def test_total_label_fits_its_column(locale, window_width):
    label = checkout.string(locale, "total")
    width = checkout.label_width(label)
    column = checkout.label_column(window_width)
    assert width <= column, f"{label!r} needs {width:.0f} pt; the column has {column:.0f} pt at {window_width} pt wide"


def test_amount_round_trips(locale):
    text = checkout.format_amount(1234567.5, locale)
    decimal, group = checkout.SEPARATORS.get(checkout.language(locale), (".", ","))
    assert float(text.replace(group, "").replace(decimal, ".")) == 1234567.5


def test_item_count_names_the_number(locale):
    assert "3" in checkout.string(locale, "items").format(n=3)
