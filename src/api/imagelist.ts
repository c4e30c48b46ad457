import { z } from "zod";
import { int32, objectMeta } from "./schema-meta.ts";

/**
 * `apps.ordinal.dev/v1` ImageList: images to pre-pull on the nodes that run (or will run) the
 * pods of Ordinal sets. `spec.images` maps an image reference to its pull options; the status
 * reports, per image, on how many nodes it is present.
 */
export const IMAGELIST_KIND = "ImageList";

export const ImageListSchema = z.object({
  apiVersion: z.string().default("apps.ordinal.dev/v1"),
  kind: z.string().default(IMAGELIST_KIND),
  metadata: objectMeta(),
  spec: z.object({
    images: z.record(
      z.string(),
      z.object({ alwaysPull: z.boolean().default(false).describe("Pull even when the node already has the image.") }),
    ),
    nodeSelector: z.record(z.string(), z.string()).optional().describe("Only nodes with these labels."),
  }),
  status: z
    .object({
      observedGeneration: z.number().int().optional(),
      images: z
        .record(
          z.string(),
          z.object({
            desired: int32().default(0),
            pulled: int32().default(0),
            failed: int32().default(0),
            message: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});

export type ImageList = z.output<typeof ImageListSchema>;
