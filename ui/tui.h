/*
 * tui.h: what the curses interface's files share. The interface is a stack
 * of screens (folders, index, pager, trust, help) drawn by one thread, the
 * interface thread, which never waits on the network, DNS or gpg: each
 * account's session runs on a worker thread (tui-worker.c) that takes jobs
 * and hands back events through a queue the main loop (tui-main.c) drains.
 *
 *   tui-main.c     the loop: keys, worker events, resize, Ctrl-Z, shell
 *   tui-draw.c     text on the screen (every byte made safe), indicator
 *                  glyphs and their ASCII forms
 *   tui-color.c    colours and attributes, the `color` lines
 *   tui-query.c    query-command on a thread of its own; the Q screen is
 *                  tui-query-screen.c
 *   tui-keys.c     key names, actions, default bindings, `bind` lines
 *   tui-prompt.c   the status line: messages, line input, yes/no
 *   tui-worker.c   an account's worker: jobs in, events out
 *   tui-folders.c, tui-index.c, tui-pager.c, tui-trust.c, tui-help.c:
 *                  the screens
 *   tui-found.c    a search of every folder (X) and the screen of its
 *                  results
 *   tui-setup*.c   the setup wizard (its own header: tui-setup.h)
 *
 * Screens draw only through tui-draw.c and hold no protocol, crypto or
 * trust logic: they ask the worker (jobs) and the engine's read-only APIs
 * (index.h on the interface thread's own cache handle, trust-store.h).
 */
#ifndef STEED_TUI_H
#define STEED_TUI_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "imap-mailbox.h"
#include "message.h"
#include "msg-flags.h"
#include "trust-store.h"
#include "verdict.h"

struct message;
struct session;
struct tui_event;

/* ---- drawing (tui-draw.c) -------------------------------------------- */

/* What is drawn; each has its colour and attribute (A_REVERSE, A_BOLD
 * without colours). Banner colours are never given to message text. */
enum tui_color {
	TC_NORMAL,
	TC_TITLE,		/* the top bar */
	TC_STATUS,		/* the bottom bar */
	TC_SELECTED,		/* the cursor row */
	TC_ERROR,		/* an error in the message line */
	TC_HEADER_NAME,		/* "From:" in the pager */
	TC_HEADER,		/* its value */
	TC_QUOTE1, TC_QUOTE2, TC_QUOTE3, /* quote levels 1, 2, 3+ */
	TC_URL,
	TC_BANNER_GOOD,		/* decrypted, good signature, verified */
	TC_BANNER_WARN,		/* not protected, first contact, unknown */
	TC_BANNER_BAD,		/* bad signature, key changed, bogus DNS */
	TC_BOUNDARY,		/* where protected content begins / ends */
	TC_PART,		/* "part 1.2: ..." and attachments */
	TC_NOTE,		/* steedmail's notes on a message */
	TC_NEW,			/* an unseen message in the index */
	TC_FLAGGED,
	TC_DELETED,
	TC_IND_GOOD,		/* an indicator: verified, DNSSEC, known */
	TC_IND_WARN,		/* first contact */
	TC_IND_BAD,		/* changed, revoked, bogus */
	TC_TREE,		/* thread lines */
	TC_INDEX,		/* an index row (read, not flagged) */
	TC_MESSAGE,		/* a message in the status line */
	TC_SIGNATURE,		/* body text after "-- " */
	TC_TILDE,		/* the pager's "~" lines past the end */
	TC_COUNT
};

/* Indicator glyphs; each has a UTF-8 form and an ASCII form (LANG=C). */
enum tui_glyph {
	TG_NEW,			/* flags column: new */
	TG_REPLIED,
	TG_FLAGGED,
	TG_DELETED,
	TG_TAGGED,		/* tagged, for ';' */
	TG_ATTACHMENT,
	TG_TREE_BRANCH,		/* thread tree: a child that has siblings after */
	TG_TREE_LAST,		/* the last child */
	TG_TREE_VERT,		/* a line going on below */
	TG_TREE_ORPHAN,		/* its parent is missing */
	TG_COLLAPSED,		/* a collapsed thread */
	TG_COUNT
};

extern int	 tui_utf8;	/* the locale is UTF-8 */
extern int	 tui_colors;	/* colours in use: 8, 256, direct, or 0
				   (NO_COLOR or none) */
#define TUI_COLORS_DIRECT	0x1000000

void		 tui_draw_init(void);	/* after initscr() */
/* The configuration's color lines, over the defaults (tui-color.c). */
void		 tui_color_load(const struct config *);
int		 tui_attr(enum tui_color);
const char	*tui_glyph(enum tui_glyph);
/* The glyph's one-line legend: "encrypted", "first contact", ... */
const char	*tui_glyph_name(enum tui_glyph);
/*
 * The words of src/verdict.h as the screens draw them: a verdict's glyph
 * in the terminal's character set ("" for none; tui-draw.c), and the
 * attribute of an indicator and of a banner in its tone (tui-color.c).
 */
const char	*tui_verdict_glyph(const struct verdict_word *);
int		 tui_tone_ind(enum verdict_tone);
int		 tui_tone_banner(enum verdict_tone);
/* A verdict's indicator: the colour a `color trust-TOKEN` or `color
 * protection-TOKEN` line gave it, else its tone's (tui-color.c). */
int		 tui_verdict_attr(const struct verdict_word *);

/*
 * Draw text (bytes from anywhere: invalid UTF-8, controls and escape
 * sequences are shown as visible placeholders, never sent) at row y,
 * column x, in at most width columns, wide and combining characters
 * counted; the rest of the width is left as it was. Returns the columns
 * used.
 */
int		 tui_put(int y, int x, int width, const char *text, int attr);
/* The same, then blanks to the end of width. */
int		 tui_putfill(int y, int x, int width, const char *text,
		     int attr);
/* Columns text takes when drawn by tui_put(). */
int		 tui_width(const char *text);
/* A full-width bar at row y: the title, the status, a banner. */
void		 tui_bar(int y, const char *text, int attr);

/* ---- keys (tui-keys.c) ------------------------------------------------ */

/* Key maps: a screen's own, then the generic one. */
enum tui_map {
	TM_GENERIC,
	TM_FOLDERS,
	TM_INDEX,
	TM_PAGER,
	TM_ATTACH,		/* the pager's list of attachments */
	TM_TRUST,
	TM_HELP,
	TM_COMPOSE,		/* the compose screen */
	TM_OUTBOX,		/* the outbox screen */
	TM_DRAFTS,		/* the list of postponed drafts */
	TM_COUNT
};

enum tui_action {
	TA_NONE,
	/* generic */
	TA_QUIT, TA_BACK, TA_HELP, TA_REDRAW, TA_SHELL,
	TA_UP, TA_DOWN, TA_PAGE_UP, TA_PAGE_DOWN, TA_HALF_UP, TA_HALF_DOWN,
	TA_TOP, TA_BOTTOM, TA_SELECT, TA_SEARCH, TA_SEARCH_NEXT,
	TA_SEARCH_PREV, TA_FOLDERS, TA_CHANGE_FOLDER, TA_NEXT_ACCOUNT,
	TA_SYNC, TA_CANCEL, TA_OUTBOX, TA_QUERY,
	/* messages (index and pager) */
	TA_READ, TA_UNREAD, TA_FLAG, TA_DELETE, TA_UNDELETE, TA_EXPUNGE,
	TA_MOVE, TA_COPY, TA_TRUST, TA_TRUST_LIST,
	TA_REPLY, TA_GROUP_REPLY, TA_FORWARD, TA_COMPOSE, TA_RECALL,
	/* index */
	TA_SORT, TA_SORT_REVERSE, TA_THREAD_TOGGLE, TA_THREADS_ALL,
	TA_TAG, TA_TAG_PATTERN, TA_UNTAG_PATTERN, TA_TAG_PREFIX,
	TA_LIMIT, TA_SEARCH_BODY, TA_NEXT_NEW, TA_SEARCH_FOLDERS,
	/* pager */
	TA_LINE_UP, TA_LINE_DOWN, TA_NEXT_MESSAGE, TA_PREV_MESSAGE,
	TA_RAW, TA_DETAILS, TA_HEADERS, TA_ATTACHMENTS, TA_SAVE, TA_OPEN, TA_PIPE,
	TA_NEXT_PART,
	/* trust */
	TA_VERIFY, TA_ACCEPT, TA_REJECT,
	/* messages: writing */
	TA_LIST_REPLY,
	/* compose */
	TA_SEND, TA_POSTPONE, TA_ABORT, TA_EDIT, TA_EDIT_FROM, TA_EDIT_TO,
	TA_EDIT_CC, TA_EDIT_BCC, TA_EDIT_SUBJECT, TA_ATTACH_FILE, TA_DETACH,
	TA_ATTACH_RENAME, TA_ATTACH_TYPE, TA_TOGGLE_ENCRYPT, TA_TOGGLE_SIGN,
	TA_TOGGLE_SMIME,
	/* outbox */
	TA_RETRY,
	/* folders: the setup wizard for another account */
	TA_ADD_ACCOUNT,
	TA_COUNT
};

/* Apply the configuration's `bind` lines; errors go to tui_error(). */
void		 tui_keys_load(struct config *);
/* The action bound to key (a curses key code) on map, else generic. */
enum tui_action	 tui_key_action(enum tui_map, int key);
/* Apply a `bind MAP KEY ACTION` setting's value ("index j next").
 * -1 and a cause (allocated) when it does not make sense. */
int		 tui_key_bind(const char *value, char **cause);
/* Names: "index", "<PageDown>", "next-page"; for help and errors. */
const char	*tui_map_name(enum tui_map);
const char	*tui_action_name(enum tui_action);
const char	*tui_action_help(enum tui_action);
/* A key as shown to a person: "j", "^F", "<Down>"; static buffer. */
const char	*tui_key_name(int key);
/* Call fn for each binding of map (and of the generic map after it). */
void		 tui_key_each(enum tui_map,
		     void (*fn)(enum tui_map, int key, enum tui_action,
		     void *), void *arg);

/* ---- the message line and prompts (tui-prompt.c) ---------------------- */

/* A message on the bottom line until the next key; text made safe. */
void		 tui_message(const char *fmt, ...)
		     __attribute__((format(printf, 1, 2)));
void		 tui_error(const char *fmt, ...)
		     __attribute__((format(printf, 1, 2)));
/*
 * Ask for a line on the bottom line, starting from init (or NULL).
 * Returns it (allocated) or NULL when cancelled (Escape, ^G). With
 * secret set, what is typed is not shown. complete (or NULL) offers
 * Tab completion: it returns the completed text, allocated, or NULL.
 */
char		*tui_prompt(const char *question, const char *init,
		     int secret, char *(*complete)(const char *, void *),
		     void *arg);
/* The same, calling tick(arg) every tenth of a second while no key comes
 * (what it draws shows with the prompt). */
char		*tui_prompt_tick(const char *question, const char *init,
		     int secret, char *(*complete)(const char *, void *),
		     void (*tick)(void *), void *arg);
/* Clear the message line if it still says text (a "working..." note). */
void		 tui_message_clear_if(const char *text);
/* y/n on the bottom line: 1 yes, 0 no or cancelled. */
int		 tui_yesno(const char *fmt, ...)
		     __attribute__((format(printf, 1, 2)));
/*
 * The same for a question whose yes is the risky answer ("send in clear
 * anyway?"): shown "(y/N)", and Enter answers no.
 */
int		 tui_yesno_no(const char *fmt, ...)
		     __attribute__((format(printf, 1, 2)));
/* Tab completion of file names, for tui_prompt(). */
char		*tui_complete_path(const char *, void *);
struct tui_account;
/* Tab completion of the folder names of an account (arg), from the list
 * its worker last made. */
char		*tui_complete_folder(const char *, void *);
/* A line of input that names a folder of the account: Tab completes. */
char		*tui_prompt_folder(const char *question, struct tui_account *);

/* ---- the worker (tui-worker.c) ---------------------------------------- */

struct tui_account;

enum tui_job_kind {
	TJ_SYNC,	/* sync a folder, then its trust step */
	TJ_FOLDERS,	/* list the folders with their counts */
	TJ_OPEN,	/* fetch a message by UID and open it (message.h) */
	TJ_RAW,		/* fetch a message (or a part) by UID, raw */
	TJ_FLAG,	/* add / remove flags */
	TJ_MOVE,
	TJ_COPY,
	TJ_EXPUNGE,
	TJ_SEARCH,	/* server-side SEARCH over bodies: UIDs */
	TJ_CALL		/* run fn(session, arg) on the worker */
};

struct tui_job {
	enum tui_job_kind kind;
	char		*folder;
	uint32_t	*uids;		/* TJ_FLAG/MOVE/COPY/DELETE: several */
	size_t		 nuids;
	uint32_t	 uid;		/* TJ_OPEN, TJ_RAW */
	char		*part;		/* TJ_RAW: a part, or NULL */
	char		*arg;		/* the target folder (MOVE, COPY),
					   the words (SEARCH) */
	char		*arg2;
	msg_flags	 add, remove;	/* TJ_FLAG */
	/* TJ_CALL: runs on the worker; returns a result class, may fill
	 * *cause and the event's payload through ev */
	int		(*fn)(struct session *, void *arg, struct tui_event *);
	void		*fn_arg;
};

enum tui_event_kind {
	TE_DONE,	/* a job ended: result, cause, payload */
	TE_PROGRESS,	/* what, done, total */
	TE_NOTICE,	/* text (a warning when level is FE_WARNING) */
	TE_CHANGED,	/* the folder changed on the server (IDLE, sync) */
	TE_STATE,	/* connected or not: text says why not */
	TE_ASK		/* the worker waits for an answer: the loop's */
};

struct tui_event {
	enum tui_event_kind kind;
	struct tui_account *acct;
	uint64_t	 job;		/* TE_DONE: the id tui_submit() gave */
	enum tui_job_kind jkind;
	int		 result;	/* IMAP_OPS_OK, SESSION_*, ... */
	char		*cause;
	char		*folder;
	/* payloads; a screen that keeps one sets the pointer to NULL */
	struct message	*msg;		/* TJ_OPEN */
	struct buf	 raw;		/* TJ_RAW, TJ_OPEN (the raw message) */
	struct imap_folder *folders;	/* TJ_FOLDERS */
	size_t		 nfolders;
	uint32_t	*uids;		/* TJ_SEARCH */
	size_t		 nuids;
	void		*data;		/* TJ_CALL, tui_background() */
	void		(*discard)(void *); /* frees data nobody took */
	/* TE_PROGRESS */
	const char	*what;
	uint64_t	 done, total;
	int		 level;		/* TE_NOTICE: enum fe_level */
	char		*text;		/* TE_NOTICE, TE_STATE */
	int		 up;		/* TE_STATE: connected */
	int		 ask;		/* TE_ASK: 0 secret, 1 yes/no,
					   2 the terminal for gpg, 3 gpg done */
};

/*
 * The handle of account a's worker, whose thread tui_account_run() starts
 * (the loop does so once the first screen is drawn, so that the worker's
 * start, gpg's included, never delays it); jobs wait until then. Its
 * events reach the main loop. Neither blocks.
 */
struct tui_account *tui_account_start(struct config *, struct account *);
void		 tui_account_run(struct tui_account *);
/* Stop the worker, waiting at most wait_ms for it: -1 when it is still
 * busy (the handle is then left to the end of the process). */
int		 tui_account_stop(struct tui_account *, int wait_ms);
struct account	*tui_account_config(struct tui_account *);
/* The interface thread's own handles, opened on first use. */
struct cache	*tui_account_cache(struct tui_account *);
struct trust_store *tui_account_trust(struct tui_account *);
/* Queue a job (copied); returns its id, which its TE_DONE carries. */
uint64_t	 tui_submit(struct tui_account *, const struct tui_job *);
/* Ask the job in progress to stop. */
void		 tui_cancel(struct tui_account *);
/* The folder IDLE watches when the worker has nothing to do. */
void		 tui_watch(struct tui_account *, const char *folder);
/* Last known state, for the status bar: NULL when connected. */
const char	*tui_account_down(struct tui_account *);
/*
 * The names of the account's folders as the worker last listed them
 * (TJ_FOLDERS, whoever asked), allocated and NULL-terminated, *n of them;
 * NULL when no list came yet (one is then asked for, once).
 */
char		**tui_account_folders(struct tui_account *, size_t *n);
/* Progress of the job in progress ("fetching headers 1,200/100,000") or
 * NULL; for the status bar. */
const char	*tui_account_progress(struct tui_account *);

void		 tui_event_free(struct tui_event *);

/*
 * Run fn(arg) on a thread of its own, for local work too slow for the
 * interface thread (reading a large header cache): its result comes back
 * as a TE_DONE event (acct NULL, jkind TJ_CALL) with the returned id and
 * data; discard frees the result when no screen takes it.
 */
uint64_t	 tui_background(void *(*fn)(void *), void *arg,
		     void (*discard)(void *));
/* Wait at most wait_ms for every tui_background() thread to end: 0 when
 * none runs, -1 when some still does (the process must then end without
 * tearing down what they use: the configuration, the engines). */
int		 tui_background_wait(int wait_ms);

/* ---- screens and the loop (tui-main.c) ------------------------------- */

struct tui_screen {
	const char	*title;		/* for the top bar; may change */
	enum tui_map	 map;
	/* Draw rows 1 .. LINES - 3 (the top bar is row 0, the status bar
	 * LINES - 2, the message line LINES - 1: the loop draws those). */
	void		(*draw)(struct tui_screen *);
	/* An action for this screen: 1 if it took it. */
	int		(*action)(struct tui_screen *, enum tui_action, int key);
	/* Every worker event goes to every screen on the stack, top first;
	 * a screen ignores what is not its own (job ids). */
	void		(*event)(struct tui_screen *, struct tui_event *);
	/* The status bar's left part, or NULL for the default. */
	void		(*status)(struct tui_screen *, struct buf *);
	void		(*free)(struct tui_screen *);
	/* The message the cursor is on (index) or shown (pager): 1 and its
	 * folder (the screen's) and UID; 0 when there is none. For reply
	 * and forward from any screen. */
	int		(*current)(struct tui_screen *, const char **folder,
			    uint32_t *uid);
	/* The message shown, opened (the pager), or NULL: reply and
	 * forward take it as it is, with no second fetch or decryption. */
	const struct message *(*opened)(struct tui_screen *);
	/* The index: the UID after or before uid (tui_index_step()). */
	uint32_t	(*step)(struct tui_screen *, uint32_t uid, int dir);
	/* The index: tag uid, or untag it; 1 when it is tagged now. */
	int		(*tag)(struct tui_screen *, uint32_t uid);
	/* Called by the loop once the screen is drawn, before it waits: a
	 * screen that asks for input now (the setup wizard) asks it here.
	 * 1 when it did something (the loop draws again), 0 when not. */
	int		(*ready)(struct tui_screen *);
	/* Drawn again every second while set (a wait that counts time). */
	int		 ticking;
	void		*data;
	struct tui_screen *below;
};

/* The running interface's state. */
struct tui {
	struct config		 *cf;
	struct tui_account	**accounts;
	size_t			  naccounts;
	size_t			  current;	/* the account shown */
	struct tui_screen	 *top;
	int			  dirty;	/* redraw before the next key */
	int			  quit;
};
extern struct tui tui;

struct tui_account *tui_current(void);
void		 tui_push(struct tui_screen *);
void		 tui_pop(void);		/* frees the top screen */
void		 tui_dirty(void);
/* Rows between the bars, and the first of them. */
int		 tui_rows(void);
#define TUI_FIRST_ROW	1
/* Leave curses for a program (a shell, an editor, a viewer), and come
 * back; the program's exit status is returned, -1 if it cannot run. */
int		 tui_run_program(const char *cmd, const char *input,
		     size_t inlen, int wait_key);
/* Leave the screen for the terminal (gpg's pinentry) and come back. */
void		 tui_suspend_screen(void);
void		 tui_resume_screen(void);

/* The screens' constructors. */
struct tui_screen *tui_folders_new(struct tui_account *);
struct tui_screen *tui_index_new(struct tui_account *, const char *folder);
/* The UID after (dir 1) or before (dir -1) uid in an index screen's
 * view, or 0 at the end; for the pager's next and previous message. */
uint32_t	 tui_index_step(struct tui_screen *index, uint32_t uid, int dir);
/* Tag uid in an index screen, or untag it: 1 tagged, 0 not, -1 no index. */
int		 tui_index_tag(struct tui_screen *index, uint32_t uid);
/* The pager takes over msg (the event's payload, holding the message's
 * bytes). index: the index screen below, to step through
 * (tui_index_step()), or NULL. */
struct tui_screen *tui_pager_new(struct tui_account *, const char *folder,
		     uint32_t uid, struct message *msg,
		     struct tui_screen *index);
/*
 * tui-found.c: a search across every folder of the account
 * (session_search_folders() on its worker). tui_found_start() asks for
 * the query and starts it; tui_found_event() sees every worker event
 * (the loop's): progress on the message line, and when the search ends,
 * the screen of what it found, or a line saying nothing was.
 */
void		 tui_found_start(struct tui_account *);
void		 tui_found_event(struct tui_event *);
/* The sender's key screen for a message's sender (addr), and the list. */
struct tui_screen *tui_trust_new(struct tui_account *, const char *addr);
struct tui_screen *tui_trust_list_new(struct tui_account *);
/* The bindings of map, with the legend of indicators on the index's. */
struct tui_screen *tui_help_new(enum tui_map);

/*
 * query-command, asked on a thread of its own (tui_background()), never
 * on the interface thread (tui-query.c). A query is shared by whoever
 * holds it: tui_query_done() says whether the answer is in (then its
 * matches, message and error may be read); tui_query_unref() lets go.
 */
struct tui_query;
struct addrbook_entry;
struct tui_query *tui_query_start(const char *what);
const char	*tui_query_what(const struct tui_query *);
int		 tui_query_done(struct tui_query *);
/* The answer once done: the matches and their count (-1: failed). */
int		 tui_query_result(struct tui_query *,
		     const struct addrbook_entry **, const char **msg,
		     const char **cause);
void		 tui_query_unref(struct tui_query *);
/* The Q screen: ask what to look up, list what the address book says;
 * Enter writes to the address under the cursor. NULL when cancelled. */
struct tui_screen *tui_query_new(struct tui_account *);

/* ---- writing (tui-compose.c, tui-write.c, tui-send.c, tui-outbox.c,
 * tui-drafts.c) -------------------------------------------------------- */

struct draft;
struct draft_opts;

/*
 * tui-compose.c: the compose screen for d (taken over). Headers are edited
 * in the screen, the body in $VISUAL/$EDITOR; the security line comes from
 * draft_preview() run on a thread of its own whenever the recipients or the
 * toggles change. resumed: the draft file d came from (draft_resume()),
 * removed once the message is queued or postponed again; NULL for a new
 * one. With edit_first the editor opens at once (m, r, g, f do that).
 */
struct tui_screen *tui_compose_new(struct tui_account *, struct draft *d,
		     const char *resumed, int edit_first);
/* For edit_first: ask To and Subject, then open the editor (m). */
#define TUI_COMPOSE_ASK	2

/*
 * tui-write.c: where writing starts. tui_write_new() opens compose for a
 * new message (asking first whether to recall a draft when some wait);
 * tui_write_from() starts a reply (TA_REPLY, TA_GROUP_REPLY,
 * TA_LIST_REPLY) or a forward (TA_FORWARD) from the message the screen
 * shows (its current() hook): the message is fetched and the draft made on
 * the worker, compose opens when it is ready. tui_write_mailto() opens
 * compose from a mailto: URL (mailto.h's allow-list).
 */
void		 tui_write_new(struct tui_account *);
void		 tui_write_from(struct tui_screen *, enum tui_action);
int		 tui_write_mailto(struct tui_account *, const char *url);

/*
 * tui-send.c: sending on acct's worker. tui_send_draft() protects d
 * (draft_protect(): gpg may ask for a passphrase through the worker's
 * terminal hooks), queues it in the outbox and flushes the outbox;
 * d stays the caller's and must not change until the TE_DONE, whose data
 * is a struct tui_sent. tui_send_flush() flushes the outbox (only_id, or
 * all).
 */
enum tui_sent_state {
	TS_SENT,	/* sent (and saved to Sent) */
	TS_QUEUED,	/* in the outbox, to be tried again */
	TS_FAILED,	/* refused by the server for good (outbox/failed) */
	TS_REFUSED,	/* not queued: the policy refused it (draft kept) */
	TS_ERROR	/* not queued: it could not be built or protected */
};
struct tui_sent {
	enum tui_sent_state state;
	char		*line;		/* what to show, in plain words */
	char		*id;		/* the outbox entry, or NULL */
};
uint64_t	 tui_send_draft(struct tui_account *, const struct draft *,
		     const struct draft_opts *);
uint64_t	 tui_send_flush(struct tui_account *, const char *only_id);
void		 tui_sent_free(void *);

/* tui-outbox.c: queued and failed messages: retry, edit, delete. */
struct tui_screen *tui_outbox_new(struct tui_account *);
/*
 * tui-drafts.c: the postponed drafts of acct, to recall one (compose opens
 * on it). tui_drafts_saved(): the compose screen postponed a draft to path
 * (draft_postpone()); a copy goes to the account's Drafts mailbox on the
 * worker. tui_drafts_count(): how many drafts wait (for m's question).
 */
struct tui_screen *tui_drafts_new(struct tui_account *);
void		 tui_drafts_saved(struct tui_account *, const char *path);
size_t		 tui_drafts_count(struct tui_account *);

/*
 * tui-setup*.c: the setup wizard's screen (name, address, password; the
 * servers found; the login check; the key; saving; the DNS records), which
 * ends in the new account's inbox, added to the running interface.
 */
struct tui_screen *tui_setup_new(void);

/* Entry point from main(): the interface on cf; returns the exit code.
 * mailto: a mailto: URL to open compose with, or NULL. With no account in
 * cf, the setup wizard (config file: cf->path). */
int		 tui_main(struct config *, const char *account,
		     const char *mailto);
/* steedmail --setup on a terminal: the interface, with the wizard first
 * (it adds an account to cf->path). */
int		 tui_setup_main(struct config *);

#endif
