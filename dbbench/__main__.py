from dbbench.cli import main

raise SystemExit(main())
