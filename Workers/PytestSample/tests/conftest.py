import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def locale():
    """The configuration's locale, from the command job's environment (APP_LOCALE={locale})."""
    return os.environ.get("APP_LOCALE", "en")


@pytest.fixture
def window_width():
    """The configuration's window width in points (APP_WINDOW_WIDTH={window.width})."""
    return int(os.environ.get("APP_WINDOW_WIDTH", "1024"))
