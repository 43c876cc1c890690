/* list.h - the server's doubly linked lists, threaded through their
 * elements: the connections, the watchers of a game, the live-page
 * streams (all and per game) and the games in order of use.  A list is a
 * head pointer (the games' also a tail) and a pair of link fields in each
 * element, named per list; NULL ends it both ways.  These macros are the
 * one place the links change.  Arguments are evaluated more than once:
 * pass plain names and member accesses.
 */
#ifndef KB_SERVER_LIST_H
#define KB_SERVER_LIST_H

/* Put node first in the list starting at head. */
#define SRV_LIST_PUSH(head, node, prev, next)                                   \
	do {                                                                    \
		(node)->prev = NULL;                                            \
		(node)->next = (head);                                          \
		if (head)                                                       \
			(head)->prev = (node);                                  \
		(head) = (node);                                                \
	} while (0)

/* Put node last in the list from head to tail. */
#define SRV_LIST_APPEND(head, tail, node, prev, next)                           \
	do {                                                                    \
		(node)->prev = (tail);                                          \
		(node)->next = NULL;                                            \
		if (tail)                                                       \
			(tail)->next = (node);                                  \
		else                                                            \
			(head) = (node);                                        \
		(tail) = (node);                                                \
	} while (0)

/* Take node out of the list from head to tail; its links become NULL. */
#define SRV_LIST_UNLINK_ENDS(head, tail, node, prev, next)                      \
	do {                                                                    \
		if ((node)->prev)                                               \
			(node)->prev->next = (node)->next;                      \
		else                                                            \
			(head) = (node)->next;                                  \
		if ((node)->next)                                               \
			(node)->next->prev = (node)->prev;                      \
		else                                                            \
			(tail) = (node)->prev;                                  \
		(node)->prev = (node)->next = NULL;                             \
	} while (0)

/* The same for a list that keeps no tail. */
#define SRV_LIST_UNLINK(head, node, prev, next)                                 \
	do {                                                                    \
		__typeof__(node) srv_list_no_tail_;                             \
		SRV_LIST_UNLINK_ENDS(head, srv_list_no_tail_, node, prev, next); \
		(void)srv_list_no_tail_;                                        \
	} while (0)

#endif
