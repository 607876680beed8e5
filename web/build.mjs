// Builds hive's web chat into dist/ (or the directory given as the first
// argument): src/app.js and the CSS it imports bundled and minified by
// esbuild (dist/app.js, dist/app.css), index.html and the files in static/
// copied. The output depends on the sources only (no timestamps, no
// absolute paths, no source maps), so `make web-check` can compare a fresh
// build with the committed dist/ byte for byte.
import * as esbuild from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "dist"));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await esbuild.build({
  absWorkingDir: here,
  entryPoints: ["src/app.js"],
  outfile: join(out, "app.js"),
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022"],
  platform: "browser",
  legalComments: "none",
  sourcemap: false,
  charset: "utf8",
  logLevel: "warning",
});

copyFileSync(join(here, "index.html"), join(out, "index.html"));
const statics = join(here, "static");
if (existsSync(statics)) {
  for (const name of readdirSync(statics).sort()) copyFileSync(join(statics, name), join(out, name));
}
