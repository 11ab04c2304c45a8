"""Drives the registry's MCP endpoint with the official Python SDK (`mcp`) and FastMCP's
Skills client, as an agent would; prints what it saw as one JSON object for the Rust test
to check. Arguments: scenario, then JSON parameters. Environment: CAIRN_MCP_URL, CAIRN_TOKEN,
CAIRN_MCP_MODE (`auto`: the 2026-07-28 protocol; `legacy`: the initialize handshake)."""

import asyncio
import base64
import hashlib
import json
import os
import sys
from typing import Literal

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client import advertise
from mcp.client.streamable_http import streamable_http_client
from pydantic import ConfigDict

URL = os.environ["CAIRN_MCP_URL"]
TOKEN = os.environ["CAIRN_TOKEN"]
MODE = os.environ.get("CAIRN_MCP_MODE", "auto")
SKILLS = "io.modelcontextprotocol/skills"


class ListSkillsParams(types.PaginatedRequestParams): ...


class GetSkillParams(types.RequestParams):
    uri: str


class ListSkillsRequest(types.Request[ListSkillsParams, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: ListSkillsParams


class GetSkillRequest(types.Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


class RawResult(types.Result):
    model_config = ConfigDict(extra="allow")


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def client():
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
    return Client(
        streamable_http_client(URL, http_client=http),
        mode=MODE,
        client_info=types.Implementation(name="cairn-e2e-python", version="9.9"),
        extensions=[advertise(SKILLS)],
    )


async def call(c, name, arguments):
    return dump(await c.call_tool(name, arguments))


async def error_of(coroutine):
    try:
        await coroutine
    except Exception as e:  # the SDK raises the JSON-RPC error
        return {"error": str(e), "code": getattr(getattr(e, "error", None), "code", None)}
    return {"error": None}


async def tour(c, p):
    out = {"protocol": str(c.protocol_version)}
    info = c.server_capabilities
    out["capabilities"] = dump(info) if info is not None else None
    out["instructions"] = getattr(c, "instructions", None) or getattr(getattr(c, "server_info", None), "instructions", None)
    out["tools"] = [dump(t) for t in (await c.list_tools()).tools]
    out["search"] = await call(c, "search_skills", {"query": p["query"]})
    out["load"] = await call(c, "load_skill", {"name": p["skill"]})
    out["read"] = await call(c, "read_skill_file", {"name": p["skill"], "path": p["file"]})
    out["schema_error"] = await call(c, "search_skills", {"qurey": "x"})
    out["unknown_skill"] = await call(c, "load_skill", {"name": "no-such-skill"})
    uri = out["search"]["structuredContent"]["skills"][0]["uri"]
    out["resource"] = dump(await c.read_resource(uri))
    out["templates"] = [dump(t) for t in (await c.list_resource_templates()).resource_templates]
    listed = await c.session.send_request(ListSkillsRequest(params=ListSkillsParams()), RawResult)
    out["skills_list"] = dump(listed)
    got = await c.session.send_request(GetSkillRequest(params=GetSkillParams(uri=uri)), RawResult)
    out["skills_get"] = dump(got)
    out["skills_get_unknown"] = await error_of(
        c.session.send_request(
            GetSkillRequest(params=GetSkillParams(uri=uri.replace(p["skill"], "no-such-skill"))), RawResult
        )
    )
    if p.get("propose"):
        out["proposal"] = await call(c, "propose_patch", p["propose"])
        patch_id = out["proposal"].get("structuredContent", {}).get("id")
        out["mine"] = await call(c, "list_my_patches", {"status": "open"})
        out["patch"] = await call(c, "get_patch", {"id": patch_id or "none"})
    return out


async def load(c, p):
    out = {"load": await call(c, "load_skill", p["load"])}
    out["search"] = await call(c, "search_skills", {"query": p["skill"]})
    listed = await c.session.send_request(ListSkillsRequest(params=ListSkillsParams()), RawResult)
    out["skills_list"] = dump(listed)
    for uri in p.get("resources", []):
        out.setdefault("resources", {})[uri] = await error_of(c.read_resource(uri))
        if out["resources"][uri]["error"] is None:
            out["resources"][uri] = dump(await c.read_resource(uri))
    return out


async def propose(c, p):
    out = {"tools": [t.name for t in (await c.list_tools()).tools]}
    # At once, as several of the user's agents would.
    out["answers"] = list(await asyncio.gather(*(call(c, name, arguments) for name, arguments in p["calls"])))
    return out


async def run(scenario, p):
    async with client() as c:
        return await {"tour": tour, "load": load, "propose": propose}[scenario](c, p)


async def fastmcp_skills(p):
    """FastMCP's Skills client: lists the skills, gets one, and checks every file of it
    against the manifest's digest and size, as a host does before loading a skill."""
    from fastmcp import Client as FastClient
    from fastmcp.client.transports import StreamableHttpTransport
    from fastmcp.skills import SkillsClientExtension

    transport = StreamableHttpTransport(URL, headers={"Authorization": f"Bearer {TOKEN}"})
    async with FastClient(transport, extensions=[SkillsClientExtension()]) as c:
        skills = await c.list_skills()
        names = sorted(s.frontmatter.name for s in skills)
        chosen = next(s for s in skills if s.frontmatter.name == p["skill"])
        skill = await c.get_skill(chosen.uri)
        verified = []
        for resource in skill.resources:
            contents = (await c.read_resource(resource.uri))[0]
            data = contents.text.encode() if hasattr(contents, "text") else base64.b64decode(contents.blob)
            ok = "sha256:" + hashlib.sha256(data).hexdigest() == resource.digest and len(data) == resource.size
            verified.append({"uri": resource.uri, "ok": ok})
        return {"names": names, "uri": skill.uri, "verified": verified}


if __name__ == "__main__":
    scenario, params = sys.argv[1], json.loads(sys.argv[2])
    if scenario == "fastmcp":
        result = asyncio.run(fastmcp_skills(params))
    else:
        result = asyncio.run(run(scenario, params))
    print(json.dumps(result))
