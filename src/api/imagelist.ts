import * as z from "zod/mini";
import { conditionSchema, int32, integer, objectMeta } from "./schema-meta.ts";

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

const ImageOptionsSchema = z.object({
    alwaysPull: z._default(z.boolean(), false),
  });

const ImagePullStatusSchema = z.object({
    phase: ImagePullPhase,
    lastPullTime: z.optional(z.string()),
    attempts: z._default(int32().check(z.minimum(0)), 0),
    nextAttemptTime: z.optional(z.string()),
    message: z.optional(z.string()),
  });

/** At most this many pull secrets per ImageList (a puller pod names each). */
export const MAX_IMAGELIST_PULL_SECRETS = 16;

const ImageListSpecSchema = z.object({
    images: z.record(z.string(), ImageOptionsSchema),
    imagePullSecrets: z.optional(
        z
          .array(z.object({ name: z.string().check(z.minLength(1), z.maxLength(253)) }))
          .check(z.maxLength(MAX_IMAGELIST_PULL_SECRETS)),
      ),
  });

const ImageListStatusSchema = z.object({
    observedGeneration: z.optional(integer()),
    images: z.optional(z.record(z.string(), ImagePullStatusSchema)),
    desired: z.optional(integer()),
    pulled: z.optional(integer()),
    failed: z.optional(integer()),
    conditions: z.optional(z.array(conditionSchema())),
  });

export const ImageListSchema = z.object({
    apiVersion: z._default(z.string(), "apps.ordinal.dev/v1"),
    kind: z._default(z.string(), IMAGELIST_KIND),
    metadata: objectMeta(),
    spec: ImageListSpecSchema,
    status: z.optional(ImageListStatusSchema),
  });

export type ImageList = z.output<typeof ImageListSchema>;
export type ImagePullStatus = z.output<typeof ImagePullStatusSchema>;
