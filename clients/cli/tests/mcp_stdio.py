"""Drives `cairn mcp` over stdio with the official Python MCP SDK, as an agent that starts
its tools as programs would; prints what it saw as one JSON object. Arguments: the program,
its arguments (JSON list), the calls (JSON list of [tool or "resources/read", arguments])."""

import asyncio
import json
import os
import sys

import mcp_types as types
from mcp import Client, StdioServerParameters


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def main(program, args, calls):
    server = StdioServerParameters(command=program, args=args, env=dict(os.environ))
    agent = types.Implementation(name="cairn-e2e-stdio", version="2.0")
    async with Client(server, client_info=agent) as c:
        try:
            out = {"tools": [t.name for t in (await c.list_tools()).tools], "answers": []}
        except Exception as e:  # a JSON-RPC error, e.g. a login that no longer works
            return {"tools_error": str(e)}
        for name, arguments in calls:
            try:
                if name == "resources/read":
                    answer = dump(await c.read_resource(arguments["uri"]))
                else:
                    answer = dump(await c.call_tool(name, arguments))
            except Exception as e:  # a JSON-RPC error
                answer = {"error": str(e)}
            out["answers"].append(answer)
        return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])))))
