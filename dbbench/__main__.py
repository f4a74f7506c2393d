from dbbench.console import entry

entry()
