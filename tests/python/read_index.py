"""Reads the team index through code that grpcio-tools generated from our .proto.

Usage: read_index.py GENERATED_DIR HOST:PORT TOKEN
Prints one JSON object: the index, one skill, and the status of a failing call.
"""

import json
import sys

sys.path.insert(0, sys.argv[1])

import grpc  # noqa: E402
from cairn.v1 import registry_pb2, registry_pb2_grpc  # noqa: E402


def main() -> None:
    target, token = sys.argv[2], sys.argv[3]
    metadata = [("authorization", f"Bearer {token}")]
    with grpc.insecure_channel(target) as channel:
        stub = registry_pb2_grpc.RegistryStub(channel)
        index = stub.GetIndex(registry_pb2.GetIndexRequest(), metadata=metadata, timeout=10)
        skill = stub.GetSkill(registry_pb2.GetSkillRequest(name="demo"), metadata=metadata, timeout=10)
        try:
            stub.GetSkill(registry_pb2.GetSkillRequest(name="missing"), metadata=metadata, timeout=10)
            missing = None
        except grpc.RpcError as error:
            missing = {"code": error.code().name, "details": error.details()}
        try:
            stub.GetIndex(registry_pb2.GetIndexRequest(), timeout=10)
            anonymous = None
        except grpc.RpcError as error:
            anonymous = {"code": error.code().name, "details": error.details()}
    print(
        json.dumps(
            {
                "cursor": index.cursor,
                "skills": [
                    {
                        "name": entry.name,
                        "category": entry.category if entry.HasField("category") else None,
                        "description": entry.description,
                        "revision": entry.revision,
                        "digest": entry.digest,
                        "files": [
                            {"path": f.path, "sha256": f.sha256, "size": f.size, "executable": f.executable}
                            for f in entry.files
                        ],
                    }
                    for entry in index.skills
                ],
                "skill": {"name": skill.skill.name, "latest_revision": skill.skill.latest_revision,
                          "version_digest": skill.version.digest},
                "missing": missing,
                "anonymous": anonymous,
            }
        )
    )


if __name__ == "__main__":
    main()
