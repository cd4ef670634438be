/*
 * smtp-words.h: a server's refusal in words, for the refusals of the
 * large providers (smtp-words.c): size, recipients, sending limits, app
 * passwords, SMTP AUTH switched off.
 */
#ifndef STEED_SMTP_WORDS_H
#define STEED_SMTP_WORDS_H

/*
 * What the reply (a server's words: its enhanced status code, its text)
 * means, as a sentence for a person; NULL when it is none of those known.
 */
const char	*smtp_words_explain(const char *reply);

#endif
