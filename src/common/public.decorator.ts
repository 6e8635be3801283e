import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';
/** Opts a route out of the global authentication guard; credentials sent to it are ignored. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export const ANONYMOUS_IF_SETTING = 'anonymousIfSetting';
/** Protected, except that anonymous callers are let in while the named boolean setting is true. */
export const AnonymousIfSetting = (key: string) => SetMetadata(ANONYMOUS_IF_SETTING, key);
