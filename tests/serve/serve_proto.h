/* serve_proto.h: what pcd-serve-client sends pcd-serve (tests/serve/serve.c), one request per
 * connection: its stdin, stdout and stderr (SCM_RIGHTS, with the first bytes), then
 *   u32 length, and that many bytes: the working directory, NUL; argc (u32); argc strings, each
 *   NUL-terminated; envc (u32); envc "NAME=value" strings, each NUL-terminated;
 * and the server answers with one i32: the exit status pcd_cli_main returned. */
#ifndef PCD_SERVE_PROTO_H
#define PCD_SERVE_PROTO_H

#define PCD_SERVE_MAX_REQUEST (16u << 20)

#endif
