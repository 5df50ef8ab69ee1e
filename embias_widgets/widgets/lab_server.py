"""The Jupyter server side of the report viewer in JupyterLab (``labextension/src/viewer.js``).

A ``report.json`` opened in JupyterLab is drawn from the same blocks as ``report.html`` and the
:class:`~.report_viewer.ReportViewer` widget: :func:`embias_widgets.analysis.publish.page.page` builds them in
Python (findings, coverage, agreement, models side by side with their figure, sections), so the viewer asks the
server for them: ``POST {base_url}/embias-widgets/report-page`` with the file's text answers ``{"page": blocks}``,
or status 400 and ``{"message": why}`` when the text is not a whole ``embias-report/1`` report. The route needs
the server's authentication like every JupyterLab API; nothing is read from or written to disk.

Enabled by ``jupyter-config/jupyter_server_config.d/embias_widgets.json`` (installed with the package).
"""

from __future__ import annotations

import json
import math
from typing import Any

ROUTE = "embias-widgets/report-page"


def report_page(text: str | bytes) -> list[dict[str, Any]]:
    """The page blocks of a ``report.json``'s text; ValueError saying what is wrong when it is not a report."""
    from ..analysis.publish.page import page, report_problem  # the check ReportViewer makes, every readable schema

    fix = "open it with Open With > Editor, or write it again with `embias report`"
    try:
        report = json.loads(text)
    except ValueError as err:
        raise ValueError(f"not valid JSON ({err}); {fix}") from None
    problem = report_problem(report)
    if problem is not None:
        what = problem if problem.startswith("it is not") else f"it is not a whole embias report: {problem}"
        raise ValueError(f"{what}; {fix}")
    return page(report)


def _finite(value: Any) -> Any:
    """``value`` with each NaN or infinity written as the formatter writes it (JSON has no such numbers)."""
    if isinstance(value, float) and not math.isfinite(value):
        from ..formatting import format_value

        return format_value(value)
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def _handler() -> type:
    import tornado.web
    from jupyter_server.base.handlers import APIHandler

    class ReportPageHandler(APIHandler):
        """``POST`` a report's text, get its page blocks (``{"page": [...]}``)."""

        @tornado.web.authenticated
        def post(self) -> None:
            try:
                blocks = report_page(self.request.body)
            except ValueError as err:
                self.set_status(400)
                self.finish(json.dumps({"message": str(err)}))
                return
            self.finish(json.dumps({"page": _finite(blocks)}, allow_nan=False, default=str))

    return ReportPageHandler


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "embias_widgets.widgets.lab_server"}]


def _load_jupyter_server_extension(server_app: Any) -> None:
    """Add the report-page route to the running Jupyter server."""
    from jupyter_server.utils import url_path_join

    web_app = server_app.web_app
    route = url_path_join(web_app.settings["base_url"], ROUTE)
    web_app.add_handlers(".*$", [(route, _handler())])
