package main

// kind says which hand-written hooks of interpose/c a wrapper calls.
type kind int

const (
	kSend       kind = iota // blocking send: token, then the call, then lm_sent
	kIsend                  // nonblocking send: the same, the request is not tracked
	kRecv                   // blocking receive: lm_recv does the call
	kIrecv                  // nonblocking receive: lm_irecv does the call, tracks the request
	kSendrecv               // MPI_Sendrecv: lm_sendrecv
	kSendrecvR              // MPI_Sendrecv_replace: lm_sendrecv_replace
	kPlain                  // time and calls only
	kUnmeasured             // time and calls; its traffic is not in the matrix (flag)
	kWait                   // completion: lm_<name> does the call
	kPSendInit              // persistent send creation
	kPRecvInit              // persistent receive creation
	kHook                   // lm_<name> does the call (MPI_Start, MPI_Mprobe, ...)
	kColl                   // blocking collective: optional timed barrier, bytes
	kIcoll                  // nonblocking collective: bytes, no barrier
	kCommNew                // creates a communicator in *Out
	kCommFree               // frees the communicator *Out
	kTypeFree               // MPI_Type_free: forget the cached datatype size
	kInit                   // MPI_Init, MPI_Init_thread
	kFinalize               // MPI_Finalize
	kSendC                  // MPI-4 large-count send: the call, then lm_sent (no --slt token)
	kRecvC                  // large-count receive: the call, then lm_recv_done
	kIrecvC                 // large-count nonblocking receive: the call, then lm_irecv_track
	kSendrecvC              // large-count Sendrecv(_replace): the call, then lm_sendrecv_done
	kPass                   // not timed: only MPI_COMM_WORLD swapped for latmap's (passthrough.go)
)

// proto is one wrapped MPI function: its prototype exactly as in mpi.h and
// what the wrapper does. Sent and Recv are C expressions of the bytes with
// send and receive attribute of a collective (MPInside's conventions: what
// this rank contributes and what it gets; see docs/profile.md).
type proto struct {
	Name   string // without the MPI_ prefix
	Params string
	Kind   kind
	Sent   string
	Recv   string
	Out    string // kCommNew/kCommFree: the MPI_Comm* parameter
	// MPI4 wrappers exist only where the MPI defines them (MPI_VERSION >=
	// 4: MPICH 4; not Open MPI 4.1): the wrapper is compiled under #if.
	MPI4 bool
	// Via, when set, is the hand-written function of interpose/c that
	// makes the call in PMPI_Name's place, with the same arguments
	// (MPI_Cart_create: reorder.c's lm_cart_create).
	Via string
	// NoFortran, when set, says why the function has no Fortran binding
	// of latmap's although the generator could write one.
	NoFortran string
}

// Helpers used in the byte expressions (macros of collectives.h over
// functions of collectives.c):
// LM_TS(type) datatype size, LM_CS(comm) communicator size (remote size
// of an intercommunicator), LM_ROOT(root, comm) 1 when this rank is the
// root, LM_SUM(counts, comm) sum of an int array of LM_CS(comm) entries,
// LM_SUMW(counts, types, comm) its bytes with a datatype per entry,
// LM_MINE(counts, comm) this rank's entry, LM_INPLACE(buf),
// LM_INDEG(comm) and LM_OUTDEG(comm) a process topology's neighbours.
var protos = []proto{
	// Point-to-point, blocking and nonblocking.
	{Name: "Send", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm", Kind: kSend},
	{Name: "Ssend", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm", Kind: kSend},
	{Name: "Bsend", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm", Kind: kSend},
	{Name: "Rsend", Params: "const void *ibuf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm", Kind: kSend},
	{Name: "Isend", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kIsend},
	{Name: "Issend", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kIsend},
	{Name: "Ibsend", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kIsend},
	{Name: "Irsend", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kIsend},
	{Name: "Recv", Params: "void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status", Kind: kRecv},
	{Name: "Irecv", Params: "void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request", Kind: kIrecv},
	{Name: "Sendrecv", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status", Kind: kSendrecv},
	{Name: "Sendrecv_replace", Params: "void * buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status", Kind: kSendrecvR},
	{Name: "Probe", Params: "int source, int tag, MPI_Comm comm, MPI_Status *status", Kind: kPlain},
	{Name: "Iprobe", Params: "int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status", Kind: kPlain},
	{Name: "Mprobe", Params: "int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status", Kind: kHook},
	{Name: "Improbe", Params: "int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status", Kind: kHook},
	{Name: "Mrecv", Params: "void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status", Kind: kUnmeasured},
	{Name: "Imrecv", Params: "void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Request *request", Kind: kUnmeasured},

	// Completion.
	{Name: "Wait", Params: "MPI_Request *request, MPI_Status *status", Kind: kWait},
	{Name: "Waitall", Params: "int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses", Kind: kWait},
	{Name: "Waitany", Params: "int count, MPI_Request array_of_requests[], int *index, MPI_Status *status", Kind: kWait},
	{Name: "Waitsome", Params: "int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]", Kind: kWait},
	{Name: "Test", Params: "MPI_Request *request, int *flag, MPI_Status *status", Kind: kWait},
	{Name: "Testall", Params: "int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]", Kind: kWait},
	{Name: "Testany", Params: "int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status", Kind: kWait},
	{Name: "Testsome", Params: "int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]", Kind: kWait},

	// Persistent requests.
	{Name: "Send_init", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kPSendInit},
	{Name: "Ssend_init", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kPSendInit},
	{Name: "Bsend_init", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kPSendInit},
	{Name: "Rsend_init", Params: "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kPSendInit},
	{Name: "Recv_init", Params: "void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request", Kind: kPRecvInit},
	{Name: "Start", Params: "MPI_Request *request", Kind: kHook},
	{Name: "Startall", Params: "int count, MPI_Request array_of_requests[]", Kind: kHook},
	{Name: "Request_free", Params: "MPI_Request *request", Kind: kHook},
	{Name: "Cancel", Params: "MPI_Request *request", Kind: kPlain},

	// Blocking collectives.
	{Name: "Barrier", Params: "MPI_Comm comm", Kind: kColl, Sent: "0", Recv: "0"},
	{Name: "Bcast", Params: "void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm", Kind: kColl,
		Sent: "LM_ROOT(root, comm) ? (int64_t)count * LM_TS(datatype) : 0", Recv: "LM_ROOT(root, comm) ? 0 : (int64_t)count * LM_TS(datatype)"},
	{Name: "Reduce", Params: "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm", Kind: kColl,
		Sent: "(int64_t)count * LM_TS(datatype)", Recv: "LM_ROOT(root, comm) ? (int64_t)count * LM_TS(datatype) : 0"},
	{Name: "Allreduce", Params: "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kColl,
		Sent: "(int64_t)count * LM_TS(datatype)", Recv: "(int64_t)count * LM_TS(datatype)"},
	{Name: "Reduce_scatter", Params: "const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kColl,
		Sent: "LM_SUM(recvcounts, comm) * LM_TS(datatype)", Recv: "(int64_t)LM_MINE(recvcounts, comm) * LM_TS(datatype)"},
	{Name: "Reduce_scatter_block", Params: "const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kColl,
		Sent: "(int64_t)recvcount * LM_CS(comm) * LM_TS(datatype)", Recv: "(int64_t)recvcount * LM_TS(datatype)"},
	{Name: "Scan", Params: "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kColl,
		Sent: "(int64_t)count * LM_TS(datatype)", Recv: "(int64_t)count * LM_TS(datatype)"},
	{Name: "Exscan", Params: "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kColl,
		Sent: "(int64_t)count * LM_TS(datatype)", Recv: "(int64_t)count * LM_TS(datatype)"},
	{Name: "Gather", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm", Kind: kColl,
		Sent: "LM_INPLACE(sendbuf) ? (int64_t)recvcount * LM_TS(recvtype) : (int64_t)sendcount * LM_TS(sendtype)", Recv: "LM_ROOT(root, comm) ? (int64_t)recvcount * LM_CS(comm) * LM_TS(recvtype) : 0"},
	{Name: "Gatherv", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm", Kind: kColl,
		Sent: "LM_INPLACE(sendbuf) ? 0 : (int64_t)sendcount * LM_TS(sendtype)", Recv: "LM_ROOT(root, comm) ? LM_SUM(recvcounts, comm) * LM_TS(recvtype) : 0"},
	{Name: "Scatter", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm", Kind: kColl,
		Sent: "LM_ROOT(root, comm) ? (int64_t)sendcount * LM_CS(comm) * LM_TS(sendtype) : 0", Recv: "LM_INPLACE(recvbuf) ? 0 : (int64_t)recvcount * LM_TS(recvtype)"},
	{Name: "Scatterv", Params: "const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm", Kind: kColl,
		Sent: "LM_ROOT(root, comm) ? LM_SUM(sendcounts, comm) * LM_TS(sendtype) : 0", Recv: "LM_INPLACE(recvbuf) ? 0 : (int64_t)recvcount * LM_TS(recvtype)"},
	{Name: "Allgather", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm", Kind: kColl,
		Sent: "LM_INPLACE(sendbuf) ? (int64_t)recvcount * LM_TS(recvtype) : (int64_t)sendcount * LM_TS(sendtype)", Recv: "(int64_t)recvcount * LM_CS(comm) * LM_TS(recvtype)"},
	{Name: "Allgatherv", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm", Kind: kColl,
		Sent: "LM_INPLACE(sendbuf) ? (int64_t)LM_MINE(recvcounts, comm) * LM_TS(recvtype) : (int64_t)sendcount * LM_TS(sendtype)", Recv: "LM_SUM(recvcounts, comm) * LM_TS(recvtype)"},
	{Name: "Alltoall", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm", Kind: kColl,
		Sent: "LM_INPLACE(sendbuf) ? (int64_t)recvcount * LM_CS(comm) * LM_TS(recvtype) : (int64_t)sendcount * LM_CS(comm) * LM_TS(sendtype)", Recv: "(int64_t)recvcount * LM_CS(comm) * LM_TS(recvtype)"},
	{Name: "Alltoallv", Params: "const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm", Kind: kColl,
		Sent: "LM_INPLACE(sendbuf) ? LM_SUM(recvcounts, comm) * LM_TS(recvtype) : LM_SUM(sendcounts, comm) * LM_TS(sendtype)", Recv: "LM_SUM(recvcounts, comm) * LM_TS(recvtype)"},
	{Name: "Alltoallw", Params: "const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm", Kind: kColl,
		Sent: "LM_INPLACE(sendbuf) ? LM_SUMW(recvcounts, recvtypes, comm) : LM_SUMW(sendcounts, sendtypes, comm)", Recv: "LM_SUMW(recvcounts, recvtypes, comm)"},
	{Name: "Neighbor_allgather", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm", Kind: kColl,
		Sent: "(int64_t)sendcount * LM_TS(sendtype)", Recv: "(int64_t)recvcount * LM_INDEG(comm) * LM_TS(recvtype)"},
	{Name: "Neighbor_alltoall", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm", Kind: kColl,
		Sent: "(int64_t)sendcount * LM_OUTDEG(comm) * LM_TS(sendtype)", Recv: "(int64_t)recvcount * LM_INDEG(comm) * LM_TS(recvtype)"},

	// Nonblocking collectives (no barrier is inserted before them: that
	// could deadlock a correct program).
	{Name: "Ibarrier", Params: "MPI_Comm comm, MPI_Request *request", Kind: kIcoll, Sent: "0", Recv: "0"},
	{Name: "Ibcast", Params: "void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_ROOT(root, comm) ? (int64_t)count * LM_TS(datatype) : 0", Recv: "LM_ROOT(root, comm) ? 0 : (int64_t)count * LM_TS(datatype)"},
	{Name: "Ireduce", Params: "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "(int64_t)count * LM_TS(datatype)", Recv: "LM_ROOT(root, comm) ? (int64_t)count * LM_TS(datatype) : 0"},
	{Name: "Iallreduce", Params: "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "(int64_t)count * LM_TS(datatype)", Recv: "(int64_t)count * LM_TS(datatype)"},
	{Name: "Ireduce_scatter", Params: "const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_SUM(recvcounts, comm) * LM_TS(datatype)", Recv: "(int64_t)LM_MINE(recvcounts, comm) * LM_TS(datatype)"},
	{Name: "Ireduce_scatter_block", Params: "const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "(int64_t)recvcount * LM_CS(comm) * LM_TS(datatype)", Recv: "(int64_t)recvcount * LM_TS(datatype)"},
	{Name: "Iscan", Params: "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "(int64_t)count * LM_TS(datatype)", Recv: "(int64_t)count * LM_TS(datatype)"},
	{Name: "Iexscan", Params: "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "(int64_t)count * LM_TS(datatype)", Recv: "(int64_t)count * LM_TS(datatype)"},
	{Name: "Igather", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_INPLACE(sendbuf) ? (int64_t)recvcount * LM_TS(recvtype) : (int64_t)sendcount * LM_TS(sendtype)", Recv: "LM_ROOT(root, comm) ? (int64_t)recvcount * LM_CS(comm) * LM_TS(recvtype) : 0"},
	{Name: "Igatherv", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_INPLACE(sendbuf) ? 0 : (int64_t)sendcount * LM_TS(sendtype)", Recv: "LM_ROOT(root, comm) ? LM_SUM(recvcounts, comm) * LM_TS(recvtype) : 0"},
	{Name: "Iscatter", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_ROOT(root, comm) ? (int64_t)sendcount * LM_CS(comm) * LM_TS(sendtype) : 0", Recv: "LM_INPLACE(recvbuf) ? 0 : (int64_t)recvcount * LM_TS(recvtype)"},
	{Name: "Iscatterv", Params: "const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_ROOT(root, comm) ? LM_SUM(sendcounts, comm) * LM_TS(sendtype) : 0", Recv: "LM_INPLACE(recvbuf) ? 0 : (int64_t)recvcount * LM_TS(recvtype)"},
	{Name: "Iallgather", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_INPLACE(sendbuf) ? (int64_t)recvcount * LM_TS(recvtype) : (int64_t)sendcount * LM_TS(sendtype)", Recv: "(int64_t)recvcount * LM_CS(comm) * LM_TS(recvtype)"},
	{Name: "Iallgatherv", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_INPLACE(sendbuf) ? (int64_t)LM_MINE(recvcounts, comm) * LM_TS(recvtype) : (int64_t)sendcount * LM_TS(sendtype)", Recv: "LM_SUM(recvcounts, comm) * LM_TS(recvtype)"},
	{Name: "Ialltoall", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_INPLACE(sendbuf) ? (int64_t)recvcount * LM_CS(comm) * LM_TS(recvtype) : (int64_t)sendcount * LM_CS(comm) * LM_TS(sendtype)", Recv: "(int64_t)recvcount * LM_CS(comm) * LM_TS(recvtype)"},
	{Name: "Ialltoallv", Params: "const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_INPLACE(sendbuf) ? LM_SUM(recvcounts, comm) * LM_TS(recvtype) : LM_SUM(sendcounts, comm) * LM_TS(sendtype)", Recv: "LM_SUM(recvcounts, comm) * LM_TS(recvtype)"},
	{Name: "Ialltoallw", Params: "const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request", Kind: kIcoll,
		Sent: "LM_INPLACE(sendbuf) ? LM_SUMW(recvcounts, recvtypes, comm) : LM_SUMW(sendcounts, sendtypes, comm)", Recv: "LM_SUMW(recvcounts, recvtypes, comm)"},

	// Communicators: a world-rank table (and with --slt a shadow) per new one.
	{Name: "Comm_dup", Params: "MPI_Comm comm, MPI_Comm *newcomm", Kind: kCommNew, Out: "newcomm"},
	{Name: "Comm_dup_with_info", Params: "MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm", Kind: kCommNew, Out: "newcomm"},
	{Name: "Comm_split", Params: "MPI_Comm comm, int color, int key, MPI_Comm *newcomm", Kind: kCommNew, Out: "newcomm"},
	{Name: "Comm_split_type", Params: "MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm", Kind: kCommNew, Out: "newcomm"},
	{Name: "Comm_create", Params: "MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm", Kind: kCommNew, Out: "newcomm"},
	{Name: "Comm_create_group", Params: "MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm", Kind: kCommNew, Out: "newcomm"},
	{Name: "Cart_create", Params: "MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart", Kind: kCommNew, Out: "comm_cart", Via: "lm_cart_create"},
	{Name: "Cart_sub", Params: "MPI_Comm comm, const int remain_dims[], MPI_Comm *new_comm", Kind: kCommNew, Out: "new_comm"},
	{Name: "Graph_create", Params: "MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph", Kind: kCommNew, Out: "comm_graph", Via: "lm_graph_create"},
	{Name: "Dist_graph_create", Params: "MPI_Comm comm_old, int n, const int nodes[], const int degrees[], const int targets[], const int weights[], MPI_Info info, int reorder, MPI_Comm * newcomm", Kind: kCommNew, Out: "newcomm", Via: "lm_dist_graph_create"},
	{Name: "Dist_graph_create_adjacent", Params: "MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph", Kind: kCommNew, Out: "comm_dist_graph", Via: "lm_dist_graph_create_adjacent"},
	{Name: "Intercomm_create", Params: "MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm, int remote_leader, int tag, MPI_Comm *newintercomm", Kind: kCommNew, Out: "newintercomm"},
	{Name: "Intercomm_merge", Params: "MPI_Comm intercomm, int high, MPI_Comm *newintercomm", Kind: kCommNew, Out: "newintercomm"},
	{Name: "Comm_idup", Params: "MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request", Kind: kPlain},
	{Name: "Comm_set_name", Params: "MPI_Comm comm, const char *comm_name", Kind: kHook},
	{Name: "Comm_free", Params: "MPI_Comm *comm", Kind: kCommFree, Out: "comm"},
	{Name: "Comm_disconnect", Params: "MPI_Comm *comm", Kind: kCommFree, Out: "comm"},
	{Name: "Type_free", Params: "MPI_Datatype *type", Kind: kTypeFree},

	// One-sided: timed, but their traffic cannot be put in the matrix.
	{Name: "Put", Params: "const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win", Kind: kUnmeasured},
	{Name: "Get", Params: "void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win", Kind: kUnmeasured},
	{Name: "Accumulate", Params: "const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win", Kind: kUnmeasured},
	{Name: "Get_accumulate", Params: "const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_fence", Params: "int assert, MPI_Win win", Kind: kUnmeasured},
	{Name: "Rput", Params: "const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_cout, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request", Kind: kUnmeasured},
	{Name: "Rget", Params: "void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request", Kind: kUnmeasured},
	{Name: "Raccumulate", Params: "const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request", Kind: kUnmeasured},
	{Name: "Fetch_and_op", Params: "const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win", Kind: kUnmeasured},
	{Name: "Compare_and_swap", Params: "const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_lock", Params: "int lock_type, int rank, int assert, MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_unlock", Params: "int rank, MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_lock_all", Params: "int assert, MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_unlock_all", Params: "MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_flush", Params: "int rank, MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_post", Params: "MPI_Group group, int assert, MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_start", Params: "MPI_Group group, int assert, MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_complete", Params: "MPI_Win win", Kind: kUnmeasured},
	{Name: "Win_wait", Params: "MPI_Win win", Kind: kUnmeasured},

	// Neighbourhood collectives with per-neighbour counts: timed only.
	{Name: "Neighbor_allgatherv", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm", Kind: kUnmeasured},
	{Name: "Neighbor_alltoallv", Params: "const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm", Kind: kUnmeasured},
	{Name: "Neighbor_alltoallw", Params: "const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm", Kind: kUnmeasured},
	{Name: "Ineighbor_allgather", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured},
	{Name: "Ineighbor_alltoall", Params: "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured},

	// Dynamic processes: peers outside MPI_COMM_WORLD; no shadow is made
	// (the other side would have to make it too), so no --slt there.
	{Name: "Comm_spawn", Params: "const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]", Kind: kUnmeasured},
	{Name: "Comm_accept", Params: "const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm", Kind: kUnmeasured},
	{Name: "Comm_connect", Params: "const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm", Kind: kUnmeasured},

	// Life cycle.
	{Name: "Init", Params: "int *argc, char ***argv", Kind: kInit},
	{Name: "Init_thread", Params: "int *argc, char ***argv, int required, int *provided", Kind: kInit},
	{Name: "Finalize", Params: "void", Kind: kFinalize},
	// MPI-4 large-count calls (MPI_Count counts): called and timed, and
	// named in meta.json as not measured (their bytes are not counted yet).
	{Name: "Send_c", Params: "const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Ssend_c", Params: "const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Bsend_c", Params: "const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Rsend_c", Params: "const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Isend_c", Params: "const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured, MPI4: true},
	{Name: "Issend_c", Params: "const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured, MPI4: true},
	{Name: "Ibsend_c", Params: "const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured, MPI4: true},
	{Name: "Irsend_c", Params: "const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured, MPI4: true},
	{Name: "Recv_c", Params: "void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status", Kind: kUnmeasured, MPI4: true},
	{Name: "Irecv_c", Params: "void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured, MPI4: true},
	{Name: "Sendrecv_c", Params: "const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status", Kind: kUnmeasured, MPI4: true},
	{Name: "Sendrecv_replace_c", Params: "void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status", Kind: kUnmeasured, MPI4: true},
	{Name: "Send_init_c", Params: "const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured, MPI4: true},
	{Name: "Recv_init_c", Params: "void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured, MPI4: true},
	{Name: "Bcast_c", Params: "void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Ibcast_c", Params: "void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured, MPI4: true},
	{Name: "Reduce_c", Params: "const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Allreduce_c", Params: "const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Iallreduce_c", Params: "const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request", Kind: kUnmeasured, MPI4: true},
	{Name: "Gather_c", Params: "const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Gatherv_c", Params: "const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Scatter_c", Params: "const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Scatterv_c", Params: "const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Allgather_c", Params: "const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Allgatherv_c", Params: "const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Alltoall_c", Params: "const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Alltoallv_c", Params: "const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Alltoallw_c", Params: "const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Reduce_scatter_block_c", Params: "const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Reduce_scatter_c", Params: "const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Scan_c", Params: "const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Exscan_c", Params: "const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm", Kind: kUnmeasured, MPI4: true},
	{Name: "Put_c", Params: "const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win", Kind: kUnmeasured, MPI4: true},
	{Name: "Get_c", Params: "void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win", Kind: kUnmeasured, MPI4: true},
	{Name: "Accumulate_c", Params: "const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win", Kind: kUnmeasured, MPI4: true},
}

// pcontrol is MPI_Pcontrol, variadic, written out by the generator itself.
var pcontrol = proto{Name: "Pcontrol", Params: "const int level, ...", Kind: kPlain}
