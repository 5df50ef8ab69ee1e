"""``python -m embias_widgets.cli``: the same as the ``embias`` console script."""

from .entry import main

raise SystemExit(main())
