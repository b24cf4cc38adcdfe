import { z } from "zod";

export const errorIssueSchema = z
  .object({
    path: z.string().meta({ description: "Dot-separated path of the offending field", example: "name" }),
    message: z.string(),
  })
  .meta({ id: "ErrorIssue" });

export const errorBodySchema = z
  .object({
    error: z.object({
      message: z.string().meta({ example: "Modpack not found" }),
      code: z.string().meta({ description: "Machine-readable error code", example: "NOT_FOUND" }),
      issues: z.array(errorIssueSchema).optional().meta({ description: "Present on validation errors" }),
    }),
  })
  .meta({
    id: "Error",
    description: "The general error body.",
    example: { error: { message: "Modpack not found", code: "NOT_FOUND" } },
  });

export const unauthorizedBodySchema = z
  .object({ message: z.literal("Unauthorized") })
  .meta({ id: "Unauthorized", description: "No valid session or token.", example: { message: "Unauthorized" } });

export const noPermissionBodySchema = z.object({ message: z.literal("Do not have permission") }).meta({
  id: "NoPermission",
  description: "The caller's role lacks the operation's permission.",
  example: { message: "Do not have permission" },
});

export type ErrorBody = z.infer<typeof errorBodySchema>;
export type ErrorIssue = z.infer<typeof errorIssueSchema>;
