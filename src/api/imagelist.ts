import * as z from "zod";
import { int32, objectMeta } from "./schema-meta.ts";

/**
 * `apps.ordinal.dev/v1` ImageList: images to pre-pull on the nodes that run (or will run) the
 * pods of Ordinal sets. `spec.images` maps an image reference to its pull options; the status
 * reports, per image, on how many nodes it is present.
 */
export const IMAGELIST_KIND = "ImageList";

export const ImageListSchema = z.object({
  apiVersion: z.string().default("apps.ordinal.dev/v1").describe("apps.ordinal.dev/v1"),
  kind: z.string().default(IMAGELIST_KIND).describe("ImageList"),
  metadata: objectMeta(),
  spec: z.object({
    images: z.record(
      z.string(),
      z.object({ alwaysPull: z.boolean().default(false).describe("Pull even when the node already has the image.") }).describe("Pull options of one image."),
    ).describe("Image reference → pull options."),
    nodeSelector: z.record(z.string(), z.string()).optional().describe("Only nodes with these labels."),
  }).describe("The images wanted."),
  status: z
    .object({
      observedGeneration: z.number().int().optional().describe("The metadata.generation this status describes."),
      images: z
        .record(
          z.string(),
          z.object({
            desired: int32().default(0).describe("Nodes that should have the image."),
            pulled: int32().default(0).describe("Nodes that have it."),
            failed: int32().default(0).describe("Nodes where pulling failed."),
            message: z.string().optional().describe("The last error, if any."),
          }).describe("Pull progress of one image."),
        )
        .optional()
        .describe("Per image reference: pull progress."),
    })
    .optional()
    .describe("Observed pull state, written by the reconciler."),
}).describe("Images to pre-pull on nodes before the pods of Ordinal sets need them.");

export type ImageList = z.output<typeof ImageListSchema>;
