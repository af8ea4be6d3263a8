// Which of a site's images its build uses, and where each goes: those a published article uses to
// dist/, those only drafts use to the build's preview tree (never dist/).
import path from 'node:path';
import { assertInsideFolder } from '../content/content-files.ts';
import { CONTENT_LIMITS } from '../content/limits.ts';
import type { Site } from '../content/model.ts';
import { imageFile } from '../export/layout.ts';
import { previewImageFile } from '../export/preview-tree.ts';
import type { ExportWriter } from '../export/writer/export-writer.ts';
import type { PreviewWriter } from '../export/writer/preview-writer.ts';
import type { PublishedImage } from './images.ts';

type Resolve = (sitePath: string) => PublishedImage | undefined;

/** Each image's name in dist/ and in the preview tree, by its path in the site folder. */
export interface CopiedImages {
  published: Record<string, string>;
  preview: Record<string, string>;
}

export class ImageUse {
  // In the order they were first used: the manifest lists them so.
  private readonly published = new Map<string, PublishedImage>();
  private readonly drafts = new Map<string, PublishedImage>();
  constructor(private readonly resolve: Resolve) {}

  /** Resolves an image a published article uses. */
  readonly byPublished = (sitePath: string): PublishedImage | undefined => this.use(this.published, sitePath);
  /** Resolves an image a draft uses. */
  readonly byDraft = (sitePath: string): PublishedImage | undefined => this.use(this.drafts, sitePath);

  /**
   * Copies the images used to where they go (with a writer; without, only names them). Each file
   * is checked again to be inside the site's images/ as it is copied.
   */
  copy(site: Site, writer: ExportWriter | null, preview: PreviewWriter | null): CopiedImages {
    const imagesDir = path.join(site.dir, 'images');
    const published: Record<string, string> = {};
    for (const img of this.published.values()) {
      if (writer) assertInsideFolder(img.source, imagesDir, CONTENT_LIMITS.imageBytes);
      writer?.copyNamedByContent(imageFile(site.id, img.distName), img.source);
      published[img.sitePath] = img.distName;
    }
    const previewOnly: Record<string, string> = {};
    for (const img of this.drafts.values()) {
      if (this.published.has(img.sitePath)) continue; // published anyway
      if (writer) assertInsideFolder(img.source, imagesDir, CONTENT_LIMITS.imageBytes);
      preview?.copyNamedByContent(previewImageFile(site.id, img.distName), img.source);
      previewOnly[img.sitePath] = img.distName;
    }
    return { published, preview: previewOnly };
  }

  private use(used: Map<string, PublishedImage>, sitePath: string): PublishedImage | undefined {
    const img = this.resolve(sitePath);
    if (img) used.set(sitePath, img);
    return img;
  }
}
