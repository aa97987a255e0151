import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CallerContext } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { AuthenticatedRequest, Caller } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { plainBody } from '../image/multipart-body';
import { listFilesSchema, uploadFileSchema } from './batch-request.dto';
import { FilesService } from './files.service';

/** OpenAI's Files API for batches: upload a JSONL of requests, read a batch's output (docs/batches.md). */
@Controller('files')
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  @HttpCode(200)
  async upload(@Body() body: unknown, @Caller() caller: CallerContext, @Req() request: AuthenticatedRequest) {
    if (!request.isMultipart()) throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the file as multipart/form-data with "file" and "purpose" fields.');
    const input = parseBody(uploadFileSchema, await plainBody(body));
    return this.files.upload(caller.accountId, { ...input, filename: filenameOf(body) });
  }

  @Get()
  list(@Query() query: unknown, @Caller() caller: CallerContext) {
    return this.files.list(caller.accountId, parseBody(listFilesSchema, query));
  }

  @Get(':id')
  get(@Param('id') id: string, @Caller() caller: CallerContext) {
    return this.files.get(caller.accountId, id);
  }

  @Get(':id/content')
  async content(@Param('id') id: string, @Caller() caller: CallerContext, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    const bytes = await this.files.content(caller.accountId, id);
    reply.header(HEADER.contentType, 'application/octet-stream');
    return bytes;
  }

  @Delete(':id')
  delete(@Param('id') id: string, @Caller() caller: CallerContext) {
    return this.files.delete(caller.accountId, id);
  }
}

/** The uploaded part's file name (the multipart hook keeps it next to the bytes). */
function filenameOf(body: unknown): string {
  const part = (body as { file?: { filename?: unknown } } | null)?.file;
  const name = part && typeof part.filename === 'string' ? part.filename : '';
  return name.slice(0, 255) || 'upload.jsonl';
}
