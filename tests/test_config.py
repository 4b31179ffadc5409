"""Settings are derived from Config: the README's table and --help cannot drift from the code."""

import re
from pathlib import Path

from doorapp.config import Config, settings_markdown


def test_readme_settings_table_matches_the_code():
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    table = re.search(r"<!-- settings:start -->\n(.*)\n<!-- settings:end -->", readme, re.S).group(1)
    assert table == settings_markdown()


def test_environment_then_flags_decide_settings():
    config = Config.from_env(
        {"DOOR_PORT": "9000", "PLATFORM_TIMEOUT": "2.5", "DOOR_HOST": "0.0.0.0"}, host="127.0.0.2"
    )
    assert (config.port, config.platform_timeout, config.host) == (9000, 2.5, "127.0.0.2")
    assert config.access_token_expire_minutes == 720 and config.platform == "demo"
