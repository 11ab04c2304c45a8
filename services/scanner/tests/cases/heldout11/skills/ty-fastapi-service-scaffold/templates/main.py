import structlog
from fastapi import FastAPI

log = structlog.get_logger()
app = FastAPI(title="{{SERVICE}}")


@app.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@app.get("/readyz")
async def readyz() -> dict[str, str]:
    # TODO: check database connectivity
    return {"status": "ready"}
