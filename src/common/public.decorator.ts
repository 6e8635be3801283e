import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';
/** Opts a route out of the global authentication guard; credentials sent to it are ignored. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
