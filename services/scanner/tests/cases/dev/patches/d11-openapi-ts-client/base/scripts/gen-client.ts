import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";

const { values } = parseArgs({
  options: {
    spec: { type: "string" },
    out: { type: "string", default: "src/api/schema.d.ts" },
    header: { type: "string", multiple: true, default: [] },
  },
});

function headersFrom(list: string[]): Record<string, string> {
  return Object.fromEntries(list.map((h) => h.split(/:\s*/, 2) as [string, string]));
}

async function loadSpec(spec: string, headers: Record<string, string>): Promise<string> {
  if (/^https?:\/\//.test(spec)) {
    const res = await fetch(spec, { headers });
    if (!res.ok) throw new Error(`spec fetch failed: ${res.status}`);
    return await res.text();
  }
  return await readFile(spec, "utf8");
}

function assertOpenApi3(text: string) {
  if (!/openapi["']?\s*:\s*["']?3\./.test(text)) throw new Error("not an OpenAPI 3.x document");
}

async function main() {
  if (!values.spec) throw new Error("--spec is required");
  const text = await loadSpec(values.spec, headersFrom(values.header!));
  assertOpenApi3(text);
  const ast = await openapiTS(text);
  await mkdir(dirname(values.out!), { recursive: true });
  await writeFile(values.out!, astToString(ast));
  await writeFile(values.out!.replace(/schema\.d\.ts$/, "client.ts"),
    `import createClient from "openapi-fetch";\nimport type { paths } from "./schema";\nexport const api = (baseUrl: string) => createClient<paths>({ baseUrl });\n`);
  console.log(`wrote ${values.out}`);
}

main().catch((e) => { console.error(e.message); process.exit(1); });
