// The framework examples install Quire from this checkout (`"quire": "file:../.."`), and their
// lock files record its dependencies under "../..". When those lag behind package.json, npm
// rewrites the committed lock file on the first `npm install` in the example: they must agree.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EXAMPLES = ['astro', 'nextjs'];

type Deps = Record<string, string> | undefined;
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;

describe("the examples' lock files", () => {
  const own = readJson(path.join(ROOT, 'package.json'));
  for (const example of EXAMPLES) {
    it(`${example}: list Quire's dependencies as package.json has them (npm install --package-lock-only in examples/${example} rewrites them)`, () => {
      const dir = path.join(ROOT, 'examples', example);
      expect((readJson(path.join(dir, 'package.json')).dependencies as Deps)?.quire).toBe('file:../..');
      const locked = (
        readJson(path.join(dir, 'package-lock.json')).packages as Record<string, Record<string, unknown>>
      )['../..'];
      expect(locked).toBeDefined();
      expect({
        version: locked!.version,
        dependencies: locked!.dependencies,
        devDependencies: locked!.devDependencies,
        engines: locked!.engines,
        bin: locked!.bin,
      }).toEqual({
        version: own.version,
        dependencies: own.dependencies,
        devDependencies: own.devDependencies,
        engines: own.engines,
        bin: own.bin,
      });
    });
  }
});
