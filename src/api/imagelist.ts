import * as z from "zod";
import { int32, objectMeta } from "./schema-meta.ts";

/**
 * `apps.ordinal.dev/v1` ImageList: the images one node should have, for the pods of one namespace.
 * Its name is the node's name; it lives in the namespace of the pods that need the images, and so
 * do the short-lived puller pods that make it so (src/prewarm/). `spec.images` maps an image
 * reference to its pull options; people may write entries, and Ordinal's rollouts add (and later
 * remove) their own (recorded in the `ordinal.dev/prewarm-added` annotation). The status reports,
 * per image, where pulling stands.
 */
const IMAGELIST_KIND = "ImageList";

const ImagePullPhase = z.enum(["Pending", "Pulling", "Pulled", "Failed"]);

const ImageOptionsSchema = z
  .object({
    alwaysPull: z
      .boolean()
      .default(false)
      .describe("Pull even when the node already has the image (imagePullPolicy Always), and again every 24 hours."),
  })
  .describe("Pull options of one image.");

const ImagePullStatusSchema = z
  .object({
    phase: ImagePullPhase.describe("Pending (not started: waiting for a puller slot or a retry), Pulling (a puller pod runs), Pulled (the node has the image), Failed (the last pull failed; retried with exponential backoff)."),
    lastPullTime: z.string().optional().describe("When the image was last seen pulled on the node (RFC 3339)."),
    attempts: int32().min(0).default(0).describe("Pull attempts (puller pods) since the image last was Pulled."),
    nextAttemptTime: z.string().optional().describe("When the next pull starts: the retry of a failure, or the 24-hour re-pull of an alwaysPull image (RFC 3339)."),
    message: z.string().optional().describe("The last pull's outcome, for people (the kubelet's reason and message on failure)."),
  })
  .describe("Pull state of one image on the node.");

const ImageListSpecSchema = z
  .object({
    images: z
      .record(z.string(), ImageOptionsSchema)
      .describe("Image reference (as in a pod spec: `nginx:1.25`, `registry.example.com/app@sha256:…`) → pull options. Each reference is validated; short names are normalized as a container runtime does (`nginx` is `docker.io/library/nginx:latest`)."),
  })
  .describe("The images the node named by metadata.name should have.");

const ImageListStatusSchema = z
  .object({
    observedGeneration: z.number().int().optional().describe("The metadata.generation this status describes."),
    images: z.record(z.string(), ImagePullStatusSchema).optional().describe("Per image reference of spec.images: its pull state."),
  })
  .describe("Observed pull state, written by the reconciler.");

export const ImageListSchema = z
  .object({
    apiVersion: z.string().default("apps.ordinal.dev/v1").describe("apps.ordinal.dev/v1"),
    kind: z.string().default(IMAGELIST_KIND).describe("ImageList"),
    metadata: objectMeta(),
    spec: ImageListSpecSchema,
    status: ImageListStatusSchema.optional(),
  })
  .describe("Images to pre-pull on one node (metadata.name is the node's name) before the pods of this namespace need them; pulled by short-lived puller pods, no privileged daemon.");

export type ImageList = z.output<typeof ImageListSchema>;
export type ImagePullStatus = z.output<typeof ImagePullStatusSchema>;
