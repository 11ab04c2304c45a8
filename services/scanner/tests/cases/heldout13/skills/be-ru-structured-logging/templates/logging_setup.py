"""Настройка structlog: JSON в продакшене, цветной вывод в разработке."""
import logging
import os
import sys

import structlog

SENSITIVE_KEYS = {"email", "phone", "password", "token", "authorization", "card_number"}


def mask_pii(_logger, _method, event_dict):
    for key in list(event_dict):
        if key.lower() in SENSITIVE_KEYS:
            event_dict[key] = "***"
    return event_dict


def configure_logging(level: str | None = None) -> None:
    level = (level or os.getenv("LOG_LEVEL", "INFO")).upper()
    renderer = (
        structlog.dev.ConsoleRenderer()
        if os.getenv("LOG_FORMAT") == "console"
        else structlog.processors.JSONRenderer()
    )
    shared = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        mask_pii,
    ]
    structlog.configure(
        processors=shared + [structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level)),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(processor=renderer, foreign_pre_chain=shared))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
