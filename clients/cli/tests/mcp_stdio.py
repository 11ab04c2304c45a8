"""Drives `cairn mcp` over stdio with the official Python MCP SDK, as an agent that starts
its tools as programs would; prints what it saw as one JSON object. Arguments: the program,
its arguments (JSON list), the calls (JSON list of [tool, "resources/read", "skills/list" or
"skills/get", arguments]; ["!write", {"path", "text"}] changes a file between two calls, as
someone editing a synced skill while the agent runs would)."""

import asyncio
import json
import os
import sys
from typing import Literal

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client import advertise
from pydantic import ConfigDict


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


async def main(program, args, calls):
    server = StdioServerParameters(command=program, args=args, env=dict(os.environ))
    agent = types.Implementation(name="cairn-e2e-stdio", version="2.0")
    skills = [advertise("io.modelcontextprotocol/skills")]
    async with Client(server, client_info=agent, extensions=skills) as c:
        try:
            out = {"tools": [t.name for t in (await c.list_tools()).tools], "answers": []}
        except Exception as e:  # a JSON-RPC error, e.g. a login that no longer works
            return {"tools_error": str(e)}
        for name, arguments in calls:
            try:
                if name == "!write":
                    with open(arguments["path"], "w") as f:
                        f.write(arguments["text"])
                    answer = {"written": arguments["path"]}
                elif name == "resources/read":
                    answer = dump(await c.read_resource(arguments["uri"]))
                elif name == "skills/list":
                    request = ListSkillsRequest(params=ListSkillsParams())
                    answer = dump(await c.session.send_request(request, RawResult))
                elif name == "skills/get":
                    request = GetSkillRequest(params=GetSkillParams(uri=arguments["uri"]))
                    answer = dump(await c.session.send_request(request, RawResult))
                else:
                    answer = dump(await c.call_tool(name, arguments))
            except Exception as e:  # a JSON-RPC error
                answer = {"error": str(e)}
            out["answers"].append(answer)
        return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])))))
