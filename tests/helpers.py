"""Test helpers shared by several modules."""

from contextlib import contextmanager

from doorapp.models import db


@contextmanager
def assert_query_count(expected):
    """Fail unless exactly `expected` SQL statements run inside the block (in any thread), as peewee's
    test helper of the same name does; BEGIN and COMMIT are not counted. Yields the list of statements."""
    statements = []
    run = db.execute_sql

    def counting(sql, params=None):
        statements.append(sql)
        return run(sql, params)
    db.execute_sql = counting
    try:
        yield statements
    finally:
        del db.execute_sql  # the class's method again
    assert len(statements) == expected, f"{len(statements)} statements, not {expected}:\n" + "\n".join(statements)
