package main

import (
	"bytes"
	"fmt"
	"strings"
)

// fortranFile holds the Fortran bindings (mpif.h and `use mpi`).
const fortranFile = "c/fortran.gen.c"

// cParam is one parameter of a C prototype.
type cParam struct {
	typ, name string
	array     bool // declared name[]
}

func parseParams(params string) []cParam {
	params = strings.TrimSpace(params)
	if params == "void" {
		return nil
	}
	var out []cParam
	for _, p := range strings.Split(params, ",") {
		p = strings.TrimSpace(p)
		arr := strings.HasSuffix(p, "[]")
		p = strings.TrimSpace(strings.TrimSuffix(p, "[]"))
		i := strings.LastIndexFunc(p, func(r rune) bool { return r == ' ' || r == '*' })
		typ := strings.Join(strings.Fields(strings.ReplaceAll(p[:i+1], "*", " * ")), " ")
		typ = strings.ReplaceAll(typ, " *", "*")
		out = append(out, cParam{typ: typ, name: p[i+1:], array: arr})
	}
	return out
}

// handleTypes are the MPI handles a Fortran INTEGER stands for, with
// their conversion functions' infix.
var handleTypes = map[string]string{
	"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Op": "Op", "MPI_Win": "Win",
	"MPI_Info": "Info", "MPI_Group": "Group", "MPI_Request": "Request", "MPI_Message": "Message", "MPI_File": "File",
}

// handleNull is each handle's null value (the value of an output handle
// before the call).
var handleNull = map[string]string{
	"MPI_Comm": "MPI_COMM_NULL", "MPI_Datatype": "MPI_DATATYPE_NULL", "MPI_Request": "MPI_REQUEST_NULL", "MPI_Message": "MPI_MESSAGE_NULL", "MPI_File": "MPI_FILE_NULL",
}

// fwrap is one Fortran binding being written.
type fwrap struct {
	p                 proto
	params, pre, post []string
	args              []string
	lens              []string // the hidden lengths of CHARACTER arguments, after IERROR
	skip              string   // why the function has no Fortran binding
}

// inoutHandle reports whether the function reads the handle behind a
// pointer parameter (MPI_Wait's request) rather than only writing it
// (MPI_Isend's).
func inoutHandle(p proto) bool {
	switch p.Kind {
	case kWait, kCommFree, kTypeFree:
		return true
	}
	switch p.Name {
	case "Start", "Request_free", "Cancel", "Mrecv", "Imrecv":
		return true
	}
	return false
}

// countOf is the C expression of the length of an array parameter of a
// completion call.
func countOf(ps []cParam) string {
	for _, q := range ps {
		if q.name == "count" || q.name == "incount" {
			return "(int)*" + q.name
		}
	}
	return ""
}

func (f *fwrap) param(q cParam, all []cParam) {
	n := q.name
	typ := strings.TrimPrefix(q.typ, "const ")
	infix, isHandle := handleTypes[strings.TrimSuffix(typ, "*")]
	switch {
	case typ == "void*":
		f.params = append(f.params, "void *"+n)
		f.args = append(f.args, "lmf_buf("+n+")")
	case typ == "char*" && strings.HasPrefix(q.typ, "const ") && f.p.Kind == kPass:
		// A CHARACTER input (MPI_File_open's file name): its length
		// is passed after the arguments; C gets it without the
		// blanks Fortran pads it with.
		f.params = append(f.params, "char *"+n)
		f.lens = append(f.lens, "size_t "+n+"_len")
		f.pre = append(f.pre, fmt.Sprintf("\tchar *c_%s = lmf_string(%s, %s_len);\n", n, n, n))
		f.args = append(f.args, "c_"+n)
		f.post = append(f.post, fmt.Sprintf("\tfree(c_%s);\n", n))
	case typ == "int" && !q.array:
		f.params = append(f.params, "MPI_Fint *"+n)
		f.args = append(f.args, "(int)*"+n)
	case typ == "int" && q.array && strings.HasSuffix(n, "weights"):
		// MPI_Dist_graph_create(_adjacent)'s weights: MPI_UNWEIGHTED?
		f.params = append(f.params, "MPI_Fint *"+n)
		f.args = append(f.args, "lmf_weights("+n+")")
	case typ == "int" && q.array:
		f.params = append(f.params, "MPI_Fint *"+n)
		f.args = append(f.args, "(int *)"+n)
		if n == "array_of_indices" {
			f.post = append(f.post, fmt.Sprintf("\tif (rc == MPI_SUCCESS && c_outcount != MPI_UNDEFINED)\n\t\tfor (int i = 0; i < c_outcount; i++)\n\t\t\t%s[i]++;\n", n))
		}
	case typ == "int*":
		f.params = append(f.params, "MPI_Fint *"+n)
		f.pre = append(f.pre, fmt.Sprintf("\tint c_%s = 0;\n", n))
		f.args = append(f.args, "&c_"+n)
		if n == "index" {
			f.post = append(f.post, fmt.Sprintf("\t*%s = (MPI_Fint)(c_%s >= 0 ? c_%s + 1 : c_%s);\n", n, n, n, n))
		} else {
			f.post = append(f.post, fmt.Sprintf("\t*%s = (MPI_Fint)c_%s;\n", n, n))
		}
	case typ == "MPI_Count" || typ == "MPI_Aint":
		if q.array {
			f.params = append(f.params, typ+" *"+n)
			f.args = append(f.args, n)
		} else {
			f.params = append(f.params, typ+" *"+n)
			f.args = append(f.args, "*"+n)
		}
	case typ == "MPI_Status*" || (typ == "MPI_Status" && q.array):
		f.status(n, all)
	case isHandle && !q.array && !strings.HasSuffix(typ, "*"):
		f.params = append(f.params, "MPI_Fint *"+n)
		f.args = append(f.args, fmt.Sprintf("MPI_%s_f2c(*%s)", infix, n))
	case isHandle && strings.HasSuffix(typ, "*"):
		ct := strings.TrimSuffix(typ, "*")
		f.params = append(f.params, "MPI_Fint *"+n)
		init := handleNull[ct]
		if inoutHandle(f.p) || init == "" {
			init = fmt.Sprintf("MPI_%s_f2c(*%s)", infix, n)
		}
		f.pre = append(f.pre, fmt.Sprintf("\t%s c_%s = %s;\n", ct, n, init))
		f.args = append(f.args, "&c_"+n)
		f.post = append(f.post, fmt.Sprintf("\t*%s = MPI_%s_c2f(c_%s);\n", n, infix, n))
	case typ == "MPI_Request" && q.array:
		cnt := countOf(all)
		f.params = append(f.params, "MPI_Fint *"+n)
		f.pre = append(f.pre, fmt.Sprintf("\tMPI_Request *c_%s = lmf_alloc(%s, sizeof(MPI_Request));\n\tfor (int i = 0; i < %s; i++)\n\t\tc_%s[i] = MPI_Request_f2c(%s[i]);\n", n, cnt, cnt, n, n))
		f.args = append(f.args, "c_"+n)
		f.post = append(f.post, fmt.Sprintf("\tfor (int i = 0; i < %s; i++)\n\t\t%s[i] = MPI_Request_c2f(c_%s[i]);\n\tfree(c_%s);\n", cnt, n, n, n))
	default:
		f.skip = "parameter " + q.typ + " " + n
	}
}

// status converts a status (or an array of them, with the call's count)
// between Fortran's integers and C's MPI_Status, honouring
// MPI_STATUS(ES)_IGNORE.
func (f *fwrap) status(n string, all []cParam) {
	f.params = append(f.params, "MPI_Fint *"+n)
	if n == "status" {
		f.pre = append(f.pre, fmt.Sprintf("\tMPI_Status c_%s;\n\tint ign_%s = lmf_status_ignore(%s);\n", n, n, n))
		f.args = append(f.args, fmt.Sprintf("ign_%s ? MPI_STATUS_IGNORE : &c_%s", n, n))
		f.post = append(f.post, fmt.Sprintf("\tif (rc == MPI_SUCCESS && !ign_%s)\n\t\tMPI_Status_c2f(&c_%s, %s);\n", n, n, n))
		return
	}
	cnt := countOf(all)
	if cnt == "" {
		f.skip = "a status array without a count"
		return
	}
	// The C call always gets an array, also where Fortran passed
	// MPI_STATUSES_IGNORE: MPICH's (MPI_Status *)1 as the argument made
	// GCC warn (-Wstringop-overflow, MPI_Waitall's access attribute) in
	// every build, and the statuses are not copied back then.
	f.pre = append(f.pre, fmt.Sprintf("\tint ign_%s = lmf_statuses_ignore(%s);\n\tMPI_Status *c_%s = lmf_alloc(%s, sizeof(MPI_Status));\n", n, n, n, cnt))
	f.args = append(f.args, "c_"+n)
	bound := cnt
	for _, o := range all {
		if o.name == "outcount" {
			bound = "(c_outcount == MPI_UNDEFINED ? 0 : c_outcount)"
		}
	}
	f.post = append(f.post, fmt.Sprintf("\tif (!ign_%s && rc == MPI_SUCCESS)\n\t\tfor (int i = 0; i < %s; i++)\n\t\t\tMPI_Status_c2f(&c_%s[i], %s + i * LMF_STATUS_SIZE);\n\tfree(c_%s);\n", n, bound, n, n, n))
}

// fortranNames are the symbol spellings of one Fortran binding: what
// gfortran and other compilers call (mpi_send_, mpi_send__ with
// -fsecond-underscore, mpi_send with -fno-underscoring, MPI_SEND), as Open
// MPI 4.1's libmpi_mpifh and MPICH 4.0's libmpichfort export them.
func fortranNames(name string) []string {
	l := "mpi_" + strings.ToLower(name)
	return []string{l + "_", l + "__", l, strings.ToUpper(l)}
}

// f08Name is the use mpi_f08 symbol of a function (mpi_send_f08_): Open
// MPI 4.1's for every function (libmpi_usempif08), MPICH 4.0's for those
// without a choice buffer (libmpichfort: mpi_comm_rank_f08_,
// mpi_waitall_f08_). Their arguments are laid out as mpif.h's: a handle
// type holds one INTEGER, TYPE(MPI_Status) is the status's INTEGERs (MPICH:
// count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR, as its
// C status), a buffer is an address (Open MPI's NO_ARG_CHECK), IERROR is
// optional (NULL when left out), so they are aliases of the mpif.h
// bindings. MPICH's own f08 procedures without a buffer call PMPI_
// directly (its maint/local_python/binding_f08.py binds their C interface
// to "P" + the C name), so without these aliases latmap would see
// neither MPI_Init nor MPI_Waitall of a use mpi_f08 program.
//
// MPICH's procedures with a choice buffer (mpi_send_f08ts_, and
// mpi_send_f08ts_large_ with an INTEGER(MPI_COUNT_KIND) count) take the
// buffer as the Fortran compiler's own descriptor of an assumed-rank
// TYPE(*) array (gfortran's, not a TS 29113 CFI_cdesc_t: that is made only
// for the call of MPICH's C MPIR_Send_cdesc), and call the C MPI_Send
// (MPI_Send_c), latmap's C wrapper, which counts them once: see
// f08tsForwarder.
func f08Name(name string) string { return "mpi_" + strings.ToLower(name) + "_f08_" }

// hasChoiceBuffer reports whether a C prototype has a choice buffer (a
// void * parameter): MPICH's f08 binding of such a function is
// mpi_NAME_f08ts_, of the others mpi_NAME_f08_.
func hasChoiceBuffer(ps []cParam) bool {
	for _, q := range ps {
		if strings.TrimPrefix(q.typ, "const ") == "void*" {
			return true
		}
	}
	return false
}

// f08Guard is the condition under which fortran.gen.c defines a function's
// f08Name alias: under Open MPI always, under MPICH when the function has
// no choice buffer.
func f08Guard(ps []cParam) string {
	if hasChoiceBuffer(ps) {
		return "defined(OPEN_MPI)"
	}
	return "defined(OPEN_MPI) || defined(MPICH)"
}

// fortranWrapper writes the Fortran binding of p, or returns why it has
// none.
func fortranWrapper(w *bytes.Buffer, p proto) string {
	if p.MPI4 {
		return "MPI-4"
	}
	if p.NoFortran != "" {
		return p.NoFortran
	}
	if p.Name == "Pcontrol" {
		// MPI_PCONTROL(LEVEL) has no IERROR.
		names := fortranNames(p.Name)
		fmt.Fprintf(w, "void %s(MPI_Fint *level)\n{\n\tMPI_Pcontrol((int)*level);\n}\n", names[0])
		for _, a := range names[1:] {
			fmt.Fprintf(w, "void %s(MPI_Fint *level) __attribute__((alias(%q)));\n", a, names[0])
		}
		fmt.Fprintf(w, "#if %s\nvoid %s(MPI_Fint *level) __attribute__((alias(%q)));\n#endif\n\n", f08Guard(nil), f08Name(p.Name), names[0])
		return ""
	}
	ps := parseParams(p.Params)
	f := &fwrap{p: p}
	switch p.Name {
	case "Init":
		f.args = []string{"NULL", "NULL"}
	case "Init_thread":
		f.params = []string{"MPI_Fint *required", "MPI_Fint *provided"}
		f.pre = []string{"\tint c_provided = 0;\n"}
		f.args = []string{"NULL", "NULL", "(int)*required", "&c_provided"}
		f.post = []string{"\t*provided = (MPI_Fint)c_provided;\n"}
	default:
		for _, q := range ps {
			f.param(q, ps)
			if f.skip != "" {
				return f.skip
			}
		}
	}
	names := fortranNames(p.Name)
	params := strings.Join(append(append(f.params, "MPI_Fint *ierr"), f.lens...), ", ")
	fmt.Fprintf(w, "void %s(%s)\n{\n", names[0], params)
	for _, s := range f.pre {
		w.WriteString(s)
	}
	fmt.Fprintf(w, "\tint rc = MPI_%s(%s);\n", p.Name, strings.Join(f.args, ", "))
	for _, s := range f.post {
		w.WriteString(s)
	}
	// IERROR is optional in use mpi_f08.
	w.WriteString("\tif (ierr)\n\t\t*ierr = (MPI_Fint)rc;\n}\n")
	for _, a := range names[1:] {
		fmt.Fprintf(w, "void %s(%s) __attribute__((alias(%q)));\n", a, params, names[0])
	}
	if len(f.lens) > 0 {
		// use mpi_f08's own binding of a CHARACTER argument is left
		// alone: its layout is the compiler's.
		w.WriteString("\n")
		return ""
	}
	fmt.Fprintf(w, "#if %s\nvoid %s(%s) __attribute__((alias(%q)));\n#endif\n\n", f08Guard(ps), f08Name(p.Name), params, names[0])
	return ""
}

// f08tsName is MPICH's use mpi_f08 symbol of a function with a choice
// buffer: mpi_send_f08ts_, and for an MPI-4 large-count NAME_c the
// INTEGER(MPI_COUNT_KIND) spelling of NAME, mpi_send_f08ts_large_.
func f08tsName(p proto) string {
	if base, ok := strings.CutSuffix(p.Name, "_c"); ok && p.MPI4 {
		return "mpi_" + strings.ToLower(base) + "_f08ts_large_"
	}
	return "mpi_" + strings.ToLower(p.Name) + "_f08ts_"
}

// f08tsForwarder writes latmap's definition of MPICH's f08ts entry point of
// p (a function with a choice buffer and no string), or nothing. MPICH's
// own (wrappers_f: MPI_Send_f08ts) turns the compiler's descriptor of the
// buffer into a C descriptor and calls MPIR_Send_cdesc (wrappers_c), which
// calls the C MPI_Send: latmap's C wrapper, which accounts the call once,
// as for a C program. latmap's entry point therefore converts nothing: it
// hands its arguments, all addresses (the descriptor's among them,
// whatever the compiler's layout), to MPICH's (found with dlsym RTLD_NEXT),
// and then drops latmap's cached datatype size: for an array section that
// is not contiguous MPIR_Send_cdesc sends count 1 of a temporary datatype
// (hvectors over the section: the C wrapper sees the section's bytes,
// count x the datatype's size) and frees it with PMPI_Type_free, which
// latmap does not see, so the next temporary datatype may come back with
// the cached handle and another size. Under --call-sites it hands its own
// return address to the C wrapper as the call's site (LMF_F08TS_ENTER),
// which would otherwise be in MPIR_Send_cdesc.
func f08tsForwarder(w *bytes.Buffer, p proto) {
	ps := parseParams(p.Params)
	if !hasChoiceBuffer(ps) || p.Kind == kPass {
		return // a pass-through: MPICH's own calls the C wrapper, which swaps the world
	}
	var params, args, types []string
	for _, q := range ps {
		if strings.Contains(q.typ, "char") {
			return // hidden string lengths: none of the table's buffer functions
		}
		params = append(params, "void *"+q.name)
		args = append(args, q.name)
		types = append(types, "void *")
	}
	params, args, types = append(params, "void *ierr"), append(args, "ierr"), append(types, "void *")
	name := f08tsName(p)
	guard := "defined(MPICH)"
	if p.MPI4 {
		guard += " && MPI_VERSION >= 4"
	}
	fmt.Fprintf(w, "#if %s\nvoid %s(%s)\n{\n", guard, name, strings.Join(params, ", "))
	fmt.Fprintf(w, "\tstatic void *next;\n\tLMF_F08TS_ENTER();\n\t((void (*)(%s))lmf_next(&next, %q))(%s);\n", strings.Join(types, ", "), name, strings.Join(args, ", "))
	w.WriteString("\tlmf_f08ts_done();\n}\n#endif\n\n")
}

// fortranBindings returns fortran.gen.c and the functions without a
// Fortran binding, with the reason.
func fortranBindings(all []proto) ([]byte, []string) {
	var w bytes.Buffer
	w.WriteString(header)
	w.WriteString(`/* Fortran bindings (mpif.h, use mpi and use mpi_f08): each converts the
 * Fortran handles, statuses and sentinels, and calls latmap's C wrapper,
 * which accounts the call once and calls PMPI_. Where the MPI's own Fortran
 * binding called PMPI_ directly (Open MPI; MPICH's use mpi_f08 without a
 * buffer), the C wrappers never ran; where it called MPI_ (MPICH's mpif.h
 * and use mpi), these take its place, so nothing is counted twice. MPICH's
 * use mpi_f08 procedures with a buffer (mpi_send_f08ts_) call the C MPI_
 * functions themselves: latmap's hand the call over to them. See
 * docs/profile.md, "Fortran". */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "fortran.h"

` + exported)
	var skipped []string
	for _, p := range all {
		if why := fortranWrapper(&w, p); why != "" {
			skipped = append(skipped, "MPI_"+p.Name+": "+why)
		}
		f08tsForwarder(&w, p)
	}
	return w.Bytes(), skipped
}
