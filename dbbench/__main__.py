from dbbench.cli import entry

entry()
