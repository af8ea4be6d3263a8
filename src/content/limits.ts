// How much one contributor's file may make a build do. Content is input from anyone who can open
// a pull request, so every file is bounded before it is parsed; going over a limit is a problem
// with the file's place, never a crash or a slow build. Kept far below what hurts
// (docs/benchmarks-log.md, "figures first recorded in code comments"). docs/content.md lists them.
export const CONTENT_LIMITS = Object.freeze({
  /** Bytes of one article file (front matter and body). */
  articleBytes: 512 * 1024,
  /** Bytes of one image (it is read whole to be hashed, and copied into dist/). */
  imageBytes: 20 * 1024 * 1024,
  /** Bytes of an article's front matter, and of site.yaml or an author file. */
  yamlBytes: 64 * 1024,
  /** YAML aliases (`*name`) in one front matter or YAML file: each one walks the whole document. */
  yamlAliases: 100,
  /** Nesting of the Markdown body (block quotes, lists, emphasis, links, HTML elements). */
  nestingDepth: 100,
  /**
   * Files and folders under the sites' articles/, images/ and authors/: room for sites of some
   * hundreds of thousands of articles with their images (a build's memory stays flat in their
   * number: docs/benchmarks.md, "Memory"), the same bound as a followed checkout's files.
   */
  files: 1_000_000,
});
