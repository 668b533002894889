// base/mysql_error.h
//
// The MySQL errors sluice sends, with MySQL's numbers, SQLSTATEs and message
// texts (formats in fmt syntax). Clients and replicas match on the numbers
// and sometimes on the texts: never renumber, keep the wording.
//
//   return MakeError(er::kBadDb, name);
//
// Later modules add their errors here, in numeric order.
#pragma once

#include <fmt/format.h>

#include <cstdint>

#include "base/status.h"

namespace sluice {
namespace er {

struct Error {
  uint16_t code;
  const char* sqlstate;
  const char* format;  // fmt syntax
};

inline constexpr Error kDbCreateExists{1007, "HY000", "Can't create database '{}'; database exists"};
inline constexpr Error kDbDropExists{1008, "HY000", "Can't drop database '{}'; database doesn't exist"};
inline constexpr Error kIllegalHaOption{1031, "HY000", "Table storage engine for '{}' doesn't have this option"};
inline constexpr Error kConCount{1040, "08004", "Too many connections"};
inline constexpr Error kOutOfResources{1041, "HY000",
    "Out of memory; check if mysqld or some other process uses all available memory; if not, you may "
    "have to use 'ulimit' to allow mysqld to use more memory or you can add more swap space ({})"};
inline constexpr Error kHandshake{1043, "08S01", "Bad handshake"};
inline constexpr Error kDbAccessDenied{1044, "42000", "Access denied for user '{}'@'{}' to database '{}'"};
inline constexpr Error kAccessDenied{1045, "28000", "Access denied for user '{}'@'{}' (using password: {})"};
inline constexpr Error kNoDb{1046, "3D000", "No database selected"};
inline constexpr Error kUnknownCom{1047, "08S01", "Unknown command"};
inline constexpr Error kBadNull{1048, "23000", "Column '{}' cannot be null"};
inline constexpr Error kBadDb{1049, "42000", "Unknown database '{}'"};
inline constexpr Error kTableExists{1050, "42S01", "Table '{}' already exists"};
inline constexpr Error kBadTable{1051, "42S02", "Unknown table '{}'"};
inline constexpr Error kNonUniq{1052, "23000", "Column '{}' in {} is ambiguous"};
inline constexpr Error kServerShutdown{1053, "08S01", "Server shutdown in progress"};
inline constexpr Error kBadField{1054, "42S22", "Unknown column '{}' in '{}'"};
inline constexpr Error kTooLongIdent{1059, "42000", "Identifier name '{}' is too long"};
inline constexpr Error kDupFieldName{1060, "42S21", "Duplicate column name '{}'"};
inline constexpr Error kDupKeyName{1061, "42000", "Duplicate key name '{}'"};
inline constexpr Error kDupEntry{1062, "23000", "Duplicate entry '{}' for key '{}'"};
inline constexpr Error kWrongFieldSpec{1063, "42000", "Incorrect column specifier for column '{}'"};
inline constexpr Error kParse{1064, "42000",
    "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server "
    "version for the right syntax to use near '{}' at line {}"};
inline constexpr Error kEmptyQuery{1065, "42000", "Query was empty"};
inline constexpr Error kNonUniqTable{1066, "42000", "Not unique table/alias: '{}'"};
inline constexpr Error kInvalidDefault{1067, "42000", "Invalid default value for '{}'"};
inline constexpr Error kMultiplePriKey{1068, "42000", "Multiple primary key defined"};
inline constexpr Error kTooLongKey{1071, "42000", "Specified key was too long; max key length is {} bytes"};
inline constexpr Error kKeyColumnDoesNotExist{1072, "42000", "Key column '{}' doesn't exist in table"};
inline constexpr Error kTooBigFieldLength{1074, "42000",
    "Column length too big for column '{}' (max = {}); use BLOB or TEXT instead"};
inline constexpr Error kWrongAutoKey{1075, "42000",
    "Incorrect table definition; there can be only one auto column and it must be defined as a key"};
inline constexpr Error kWrongSubKey{1089, "HY000",
    "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key "
    "part, or the storage engine doesn't support unique prefix keys"};
inline constexpr Error kCantRemoveAllFields{1090, "42000",
    "You can't delete all columns with ALTER TABLE; use DROP TABLE instead"};
inline constexpr Error kCantDropFieldOrKey{1091, "42000", "Can't DROP '{}'; check that column/key exists"};
inline constexpr Error kUpdateTableUsed{1093, "HY000", "You can't specify target table '{}' for update in FROM clause"};
inline constexpr Error kNoSuchThread{1094, "HY000", "Unknown thread id: {}"};
inline constexpr Error kKillDenied{1095, "HY000", "You are not owner of thread {}"};
inline constexpr Error kTooLongSetEnumValue{1097, "HY000", "Too long enumeration/set value for column {}."};
inline constexpr Error kTableNotLockedForWrite{1099, "HY000", "Table '{}' was locked with a READ lock and can't be updated"};
inline constexpr Error kTableNotLocked{1100, "HY000", "Table '{}' was not locked with LOCK TABLES"};
inline constexpr Error kNoTablesUsed{1096, "HY000", "No tables used"};
inline constexpr Error kBlobCantHaveDefault{1101, "42000", "BLOB, TEXT, GEOMETRY or JSON column '{}' can't have a default value"};
inline constexpr Error kWrongDbName{1102, "42000", "Incorrect database name '{}'"};
inline constexpr Error kWrongTableName{1103, "42000", "Incorrect table name '{}'"};
inline constexpr Error kUnknown{1105, "HY000", "{}"};
inline constexpr Error kInvalidGroupFuncUse{1111, "HY000", "Invalid use of group function"};
inline constexpr Error kTableMustHaveColumns{1113, "42000", "A table must have at least 1 column"};
inline constexpr Error kUnknownCharacterSet{1115, "42000", "Unknown character set: '{}'"};
inline constexpr Error kCantInitializeUdf{1123, "HY000", "Can't initialize function '{}'; {}"};
inline constexpr Error kUdfNoPaths{1124, "HY000", "No paths allowed for shared library"};
inline constexpr Error kUdfExists{1125, "HY000", "Function '{}' already exists"};
inline constexpr Error kCantOpenLibrary{1126, "HY000", "Can't open shared library '{}' (errno: {} {})"};
inline constexpr Error kCantFindDlEntry{1127, "HY000", "Can't find symbol '{}' in library"};
inline constexpr Error kPasswordNoMatch{1133, "42000", "Can't find any matching row in the user table"};
inline constexpr Error kWrongValueCountOnRow{1136, "21S01", "Column count doesn't match value count at row {}"};
inline constexpr Error kInvalidUseOfNull{1138, "22004", "Invalid use of NULL value"};
inline constexpr Error kNonexistingGrant{1141, "42000", "There is no such grant defined for user '{}' on host '{}'"};
inline constexpr Error kTableAccessDenied{1142, "42000", "{} command denied to user '{}'@'{}' for table '{}'"};
inline constexpr Error kNoSuchTable{1146, "42S02", "Table '{}.{}' doesn't exist"};
inline constexpr Error kSyntaxError{1149, "42000",
    "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server "
    "version for the right syntax to use"};
inline constexpr Error kNetPacketTooLarge{1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes"};
inline constexpr Error kNetPacketsOutOfOrder{1156, "08S01", "Got packets out of order"};
inline constexpr Error kNetReadError{1158, "08S01", "Got an error reading communication packets"};
inline constexpr Error kNetReadInterrupted{1159, "08S01", "Got timeout reading communication packets"};
inline constexpr Error kWrongColumnName{1166, "42000", "Incorrect column name '{}'"};
inline constexpr Error kBlobKeyWithoutLength{1170, "42000",
    "BLOB/TEXT column '{}' used in key specification without a key length"};
inline constexpr Error kKeyDoesNotExist{1176, "42000", "Key '{}' doesn't exist in table '{}'"};
inline constexpr Error kUnknownSystemVariable{1193, "HY000", "Unknown system variable '{}'"};
inline constexpr Error kLockWaitTimeout{1205, "HY000", "Lock wait timeout exceeded; try restarting transaction"};
inline constexpr Error kWrongArguments{1210, "HY000", "Incorrect arguments to {}"};
inline constexpr Error kLockDeadlock{1213, "40001", "Deadlock found when trying to get lock; try restarting transaction"};
inline constexpr Error kCannotAddForeign{1215, "HY000", "Cannot add foreign key constraint"};
inline constexpr Error kErrorWhenExecutingCommand{1220, "HY000", "Error when executing command {}: {}"};
inline constexpr Error kWrongUsage{1221, "HY000", "Incorrect usage of {} and {}"};
inline constexpr Error kCantUpdateWithReadlock{1223, "HY000", "Can't execute the query because you have a conflicting read lock"};
inline constexpr Error kSpecificAccessDenied{1227, "42000",
    "Access denied; you need (at least one of) the {} privilege(s) for this operation"};
inline constexpr Error kLocalVariable{1228, "HY000", "Variable '{}' is a SESSION variable and can't be used with SET GLOBAL"};
inline constexpr Error kGlobalVariable{1229, "HY000", "Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL"};
inline constexpr Error kNoDefault{1230, "42000", "Variable '{}' doesn't have a default value"};
inline constexpr Error kWrongValueForVar{1231, "42000", "Variable '{}' can't be set to the value of '{}'"};
inline constexpr Error kWrongTypeForVar{1232, "42000", "Incorrect argument type to variable '{}'"};
inline constexpr Error kVarCantBeRead{1233, "HY000", "Variable '{}' can only be set, not read"};
inline constexpr Error kNotSupportedYet{1235, "42000", "This version of MySQL doesn't yet support '{}'"};
inline constexpr Error kMasterFatalReadingBinlog{1236, "HY000", "{}"};
inline constexpr Error kIncorrectGlobalLocalVar{1238, "HY000", "Variable '{}' is a {} variable"};
inline constexpr Error kWrongFkDef{1239, "42000", "Incorrect foreign key definition for '{}': {}"};
inline constexpr Error kOperandColumns{1241, "21000", "Operand should contain {} column(s)"};
inline constexpr Error kSubqueryNo1Row{1242, "21000", "Subquery returns more than 1 row"};
inline constexpr Error kErrUnknownStmtHandler{1243, "HY000", "Unknown prepared statement handler ({}) given to {}"};
inline constexpr Error kNotSupportedAuthMode{1251, "08004",
    "Client does not support authentication protocol requested by server; consider upgrading MySQL client"};
inline constexpr Error kCollationCharsetMismatch{1253, "42000", "COLLATION '{}' is not valid for CHARACTER SET '{}'"};
inline constexpr Error kWarnDataOutOfRange{1264, "22003", "Out of range value for column '{}' at row {}"};
inline constexpr Error kWarnDataTruncated{1265, "01000", "Data truncated for column '{}' at row {}"};
inline constexpr Error kRevokeGrants{1269, "HY000", "Can't revoke all privileges for one or more of the requested users"};
inline constexpr Error kUnknownCollation{1273, "HY000", "Unknown collation: '{}'"};
inline constexpr Error kWrongNameForIndex{1280, "42000", "Incorrect index name '{}'"};
inline constexpr Error kUnknownStorageEngine{1286, "42000", "Unknown storage engine '{}'"};
inline constexpr Error kWarnDeprecatedSyntax{1287, "HY000", "'{}' is deprecated and will be removed in a future release. Please use {} instead"};
inline constexpr Error kOptionPreventsStatement{1290, "HY000",
    "The MySQL server is running with the {} option so it cannot execute this statement"};
inline constexpr Error kDuplicatedValueInType{1291, "HY000", "Column '{}' has duplicated value '{}' in {}"};
inline constexpr Error kTruncatedWrongValue{1292, "22007", "Truncated incorrect {} value: '{}'"};
// 1292 as raised for a column (the text of 1366 with the type named).
inline constexpr Error kTruncatedWrongTemporalForField{1292, "22007", "Incorrect {} value: '{}' for column '{}' at row {}"};
inline constexpr Error kInvalidOnUpdate{1294, "HY000", "Invalid ON UPDATE clause for '{}' column"};
inline constexpr Error kErrUnsupportedPs{1295, "HY000", "This command is not supported in the prepared statement protocol yet"};
inline constexpr Error kUnknownTimeZone{1298, "HY000", "Unknown or incorrect time zone: '{}'"};
inline constexpr Error kInvalidCharacterString{1300, "HY000", "Invalid {} character string: '{}'"};
inline constexpr Error kWarnAllowedPacketOverflowed{1301, "HY000",
    "Result of {}() was larger than max_allowed_packet ({}) - truncated"};
inline constexpr Error kSpDoesNotExist{1305, "42000", "{} {} does not exist"};
inline constexpr Error kQueryInterrupted{1317, "70100", "Query execution was interrupted"};
inline constexpr Error kNoDefaultForField{1364, "HY000", "Field '{}' doesn't have a default value"};
inline constexpr Error kDivisionByZero{1365, "22012", "Division by 0"};
inline constexpr Error kTruncatedWrongValueForField{1366, "HY000",
    "Incorrect {} value: '{}' for column '{}' at row {}"};
inline constexpr Error kIllegalValueForType{1367, "22007", "Illegal {} '{}' value found during parsing"};
inline constexpr Error kUnknownTargetBinlog{1373, "HY000", "Target log not found in binlog index"};
inline constexpr Error kNoBinaryLogging{1381, "HY000", "You are not using binary logging"};
inline constexpr Error kCannotUser{1396, "HY000", "Operation {} failed for {}"};
inline constexpr Error kXaerNota{1397, "XAE04", "XAER_NOTA: Unknown XID"};
inline constexpr Error kXaerRmfail{1399, "XAE07",
                                   "XAER_RMFAIL: The command cannot be executed when global transaction is in the  {} state"};
inline constexpr Error kDataTooLong{1406, "22001", "Data too long for column '{}' at row {}"};
inline constexpr Error kCantCreateUserWithGrant{1410, "42000", "You are not allowed to create a user with GRANT"};
inline constexpr Error kWrongValueForType{1411, "HY000", "Incorrect {} value: '{}' for function {}"};
inline constexpr Error kErrStmtHasNoOpenCursor{1421, "HY000", "The statement ({}) has no open cursor."};
inline constexpr Error kTooBigScale{1425, "42000", "Too big scale {} specified for '{}'. Maximum is {}."};
inline constexpr Error kTooBigPrecision{1426, "42000", "Too-big precision {} specified for '{}'. Maximum is {}."};
inline constexpr Error kMBiggerThanD{1427, "42000",
    "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{}')."};
inline constexpr Error kStackOverrunNeedMore{1436, "HY000",
    "Thread stack overrun:  {} bytes used of a {} byte stack, and {} bytes needed.  Use 'mysqld "
    "--thread_stack=#' to specify a bigger stack."};
inline constexpr Error kXaerDupid{1440, "XAE08", "XAER_DUPID: The XID already exists"};
inline constexpr Error kDatetimeFunctionOverflow{1441, "22008", "Datetime function: {} field overflow"};
inline constexpr Error kRowIsReferenced2{1451, "23000",
    "Cannot delete or update a parent row: a foreign key constraint fails ({})"};
inline constexpr Error kNoReferencedRow2{1452, "23000",
    "Cannot add or update a child row: a foreign key constraint fails ({})"};
inline constexpr Error kErrMaxPreparedStmtCountReached{1461, "42000", "Can't create more than max_prepared_stmt_count statements (current value: {})"};
inline constexpr Error kWrongStringLength{1470, "HY000", "String '{}' is too long for {} (should be no longer than {})"};
inline constexpr Error kPluginIsNotLoaded{1524, "HY000", "Plugin '{}' is not loaded"};
inline constexpr Error kDropIndexFk{1553, "HY000", "Cannot drop index '{}': needed in a foreign key constraint"};
inline constexpr Error kWrongParamcountToNativeFct{1582, "42000", "Incorrect parameter count in the call to native function '{}'"};
inline constexpr Error kPluginDeleteBuiltin{1619, "HY000", "Built-in plugins cannot be deleted"};
inline constexpr Error kWarnPluginBusy{1620, "HY000", "Plugin is busy and will be uninstalled on shutdown"};
inline constexpr Error kVariableIsReadonly{1621, "HY000", "{} variable '{}' is read-only. Use SET {} to assign the value"};
inline constexpr Error kTooLongTableComment{1628, "HY000", "Comment for table '{}' is too long (max = {})"};
inline constexpr Error kTooLongFieldComment{1629, "HY000", "Comment for field '{}' is too long (max = {})"};
inline constexpr Error kUnknownLocale{1649, "HY000", "Unknown locale: '{}'"};
inline constexpr Error kDataOutOfRange{1690, "22003", "{} value is out of range in '{}'"};
inline constexpr Error kTruncateIllegalFk{1701, "42000",
    "Cannot truncate a table referenced in a foreign key constraint ({})"};
inline constexpr Error kPluginNoUninstall{1720, "HY000",
    "Plugin '{}' is marked as not dynamically uninstallable. You have to stop the server to uninstall it."};
inline constexpr Error kPluginNoInstall{1721, "HY000",
    "Plugin '{}' is marked as not dynamically installable. You have to stop the server to install it."};
inline constexpr Error kCantExecuteInReadOnlyTransaction{1792, "25006", "Cannot execute statement in a READ ONLY transaction."};
inline constexpr Error kMustChangePassword{1820, "HY000",
    "You must reset your password using ALTER USER statement before executing this statement."};
inline constexpr Error kFkNoIndexParent{1822, "HY000",
    "Failed to add the foreign key constraint. Missing index for constraint '{}' in the referenced table '{}'"};
inline constexpr Error kFkCannotOpenParent{1824, "HY000", "Failed to open the referenced table '{}'"};
inline constexpr Error kFkDupName{1826, "HY000", "Duplicate foreign key constraint name '{}'"};
inline constexpr Error kPasswordFormat{1827, "HY000", "The password hash doesn't have the expected format."};
inline constexpr Error kFkColumnCannotDrop{1828, "HY000",
    "Cannot drop column '{}': needed in a foreign key constraint '{}'"};
inline constexpr Error kFkColumnCannotDropChild{1829, "HY000",
    "Cannot drop column '{}': needed in a foreign key constraint '{}' of table '{}'"};
inline constexpr Error kFkColumnNotNull{1830, "HY000",
    "Column '{}' cannot be NOT NULL: needed in a foreign key constraint '{}' SET NULL"};
inline constexpr Error kFkColumnCannotChange{1832, "HY000",
    "Cannot change column '{}': used in a foreign key constraint '{}'"};
inline constexpr Error kFkColumnCannotChangeChild{1833, "HY000",
    "Cannot change column '{}': used in a foreign key constraint '{}' of table '{}'"};
inline constexpr Error kMalformedPacket{1835, "HY000", "Malformed communication packet."};
inline constexpr Error kTableCorrupt{1877, "HY000",
    "Operation cannot be performed. The table '{}.{}' is missing, corrupt or contains bad data."};
inline constexpr Error kMustChangePasswordLogin{1862, "HY000",
    "Your password has expired. To log in you must change it using a client that supports expired "
    "passwords."};
inline constexpr Error kPluginCannotBeUninstalled{1883, "HY000", "Plugin '{}' cannot be uninstalled now. {}"};
inline constexpr Error kFkDepthExceeded{3008, "HY000", "Foreign key cascade delete/update exceeds max depth of {}."};
inline constexpr Error kInvalidArgumentForLogarithm{3020, "2201E", "Invalid argument for logarithm"};
inline constexpr Error kQueryTimeout{3024, "HY000",
    "Query execution was interrupted, maximum statement execution time exceeded"};
inline constexpr Error kUserLockWrongName{3057, "42000", "Incorrect user-level lock name '{}'."};
inline constexpr Error kUserLockDeadlock{3058, "HY000",
    "Deadlock found when trying to get user-level lock; try rolling back transaction/releasing locks and "
    "restarting lock acquisition."};
inline constexpr Error kAccountHasBeenLocked{3118, "HY000", "Access denied for user '{}'@'{}'. Account is locked."};
// JSON (sql/json.h).
inline constexpr Error kInvalidJsonText{3140, "22032", "Invalid JSON text: \"{}\" at position {} in value for column '{}'."};
inline constexpr Error kInvalidJsonTextInParam{3141, "22032",
                                               "Invalid JSON text in argument {} to function {}: \"{}\" at position {}."};
inline constexpr Error kInvalidJsonPath{3143, "42000", "Invalid JSON path expression. The error is around character position {}."};
inline constexpr Error kInvalidJsonCharset{3144, "22032", "Cannot create a JSON value from a string with CHARACTER SET '{}'."};
inline constexpr Error kInvalidTypeForJson{
    3146, "22032", "Invalid data type for JSON data in argument {} to function {}; a JSON string or JSON type is required."};
inline constexpr Error kInvalidJsonPathWildcard{
    3149, "42000", "In this situation, path expressions may not contain the * and ** tokens or an array range."};
inline constexpr Error kJsonValueTooBig{3150, "22032", "The JSON value is too big to be stored in a JSON column."};
inline constexpr Error kJsonUsedAsKey{
    3152, "42000", "JSON column '{}' supports indexing only via generated columns on a specified JSON path."};
inline constexpr Error kJsonVacuousPath{3153, "42000", "The path expression '$' is not allowed in this context."};
inline constexpr Error kJsonBadOneOrAllArg{3154, "42000", "The oneOrAll argument to {} may take these values: 'one' or 'all'."};
inline constexpr Error kJsonDocumentTooDeep{3157, "22032", "The JSON document exceeds the maximum depth."};
inline constexpr Error kJsonDocumentNullKey{3158, "22032", "JSON documents may not contain NULL member names."};
inline constexpr Error kSecureTransportRequired{3159, "HY000",
    "Connections using insecure transport are prohibited while --require_secure_transport=ON."};
inline constexpr Error kUserDoesNotExist{3162, "HY000", "Authorization ID {} does not exist."};
inline constexpr Error kUserAlreadyExists{3163, "HY000", "Authorization ID {} already exists."};
inline constexpr Error kResetMasterToValueOutOfRange{3567, "HY000",
    "The requested value '{}' for the next binary log index is out of range. Please use a value between '1' and "
    "'2000000000'."};
inline constexpr Error kLockNowait{3572, "HY000",
    "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set."};
inline constexpr Error kVarDoesNotExist{3615, "HY000", "Variable {} does not exist in persisted config file"};
inline constexpr Error kIllegalPrivilegeLevel{3619, "HY000", "Illegal privilege level specified for {}"};
inline constexpr Error kRegexpIllegalArgument{3685, "HY000", "Illegal argument to a regular expression."};
inline constexpr Error kRegexpIndexOutOfBounds{3686, "HY000", "Index out of bounds in regular expression search."};
inline constexpr Error kRegexpInternalError{3687, "HY000", "Internal error in the regular expression library."};
inline constexpr Error kRegexpRuleSyntax{3688, "HY000", "Syntax error in regular expression on line {}, character {}."};
inline constexpr Error kRegexpBadEscapeSequence{3689, "HY000", "Unrecognized escape sequence in regular expression."};
inline constexpr Error kRegexpUnimplemented{3690, "HY000",
    "The regular expression contains a feature that is not implemented in this library version."};
inline constexpr Error kRegexpMismatchedParen{3691, "HY000", "Mismatched parenthesis in regular expression."};
inline constexpr Error kRegexpBadInterval{3692, "HY000", "Incorrect description of a {{min,max}} interval."};
inline constexpr Error kRegexpMaxLtMin{3693, "HY000", "The maximum is less than the minimum in a {{min,max}} interval."};
inline constexpr Error kRegexpInvalidBackRef{3694, "HY000", "Invalid back-reference in regular expression."};
inline constexpr Error kRegexpLookBehindLimit{3695, "HY000",
    "The look-behind assertion exceeds the limit in regular expression."};
inline constexpr Error kRegexpMissingCloseBracket{3696, "HY000",
    "The regular expression contains an unclosed bracket expression."};
inline constexpr Error kRegexpInvalidRange{3697, "HY000",
    "The regular expression contains an [x-y] character range where x comes after y."};
inline constexpr Error kRegexpStackOverflow{3698, "HY000", "Overflow in the regular expression backtrack stack."};
inline constexpr Error kRegexpTimeOut{3699, "HY000", "Timeout exceeded in regular expression match."};
inline constexpr Error kRegexpPatternTooBig{3700, "HY000",
    "The regular expression pattern exceeds limits on size or complexity."};
inline constexpr Error kGeneratedColumnFunctionNotAllowed{3102, "HY000",
    "Expression of generated column '{}' contains a disallowed function."};
inline constexpr Error kNonDefaultValueForGeneratedColumn{3105, "HY000",
    "The value specified for generated column '{}' in table '{}' is not allowed."};
inline constexpr Error kGeneratedColumnNonPrior{3107, "HY000",
    "Generated column can refer only to generated columns defined prior to it."};
inline constexpr Error kDependentByGeneratedColumn{3108, "HY000", "Column '{}' has a generated column dependency."};
inline constexpr Error kGeneratedColumnRefAutoInc{3109, "HY000",
    "Generated column '{}' cannot refer to auto-increment column."};
inline constexpr Error kFkCannotDropParent{3730, "HY000",
    "Cannot drop table '{}' referenced by a foreign key constraint '{}' on table '{}'."};
inline constexpr Error kFkNoColumnParent{3734, "HY000",
    "Failed to add the foreign key constraint. Missing column '{}' for constraint '{}' in the referenced table '{}'"};
inline constexpr Error kFkIncompatibleColumns{3780, "HY000",
    "Referencing column '{}' and referenced column '{}' in foreign key constraint '{}' are incompatible."};
inline constexpr Error kColumnCheckReferencesOtherColumn{3813, "HY000",
    "Column check constraint '{}' references other column."};
inline constexpr Error kCheckConstraintNamedFunctionNotAllowed{3814, "HY000",
    "An expression of a check constraint '{}' contains disallowed function: {}."};
inline constexpr Error kCheckConstraintFunctionNotAllowed{3815, "HY000",
    "An expression of a check constraint '{}' contains disallowed function."};
inline constexpr Error kCheckConstraintVariables{3816, "HY000",
    "An expression of a check constraint '{}' cannot refer to a user or system variable."};
inline constexpr Error kCheckConstraintRefersAutoIncrementColumn{3818, "HY000",
    "Check constraint '{}' cannot refer to an auto-increment column."};
inline constexpr Error kCheckConstraintViolated{3819, "HY000", "Check constraint '{}' is violated."};
inline constexpr Error kCheckConstraintRefersUnknownColumn{3820, "HY000",
    "Check constraint '{}' refers to non-existing column '{}'."};
inline constexpr Error kCheckConstraintNotFound{3821, "HY000", "Check constraint '{}' is not found in the table."};
inline constexpr Error kCheckConstraintDupName{3822, "HY000", "Duplicate check constraint name '{}'."};
inline constexpr Error kConstraintNotFound{3940, "HY000", "Constraint '{}' does not exist."};
inline constexpr Error kDependentByCheckConstraint{3959, "HY000",
    "Check constraint '{}' uses column '{}', hence column cannot be dropped or renamed."};
inline constexpr Error kClientInteractionTimeout{4031, "HY000",
    "The client was disconnected by the server because of inactivity. See wait_timeout and "
    "interactive_timeout for configuring this behavior."};

}  // namespace er

template <typename... Args>
Status MakeError(const er::Error& e, Args&&... args) {
  return Status::MySQL(e.code, e.sqlstate,
                       fmt::format(fmt::runtime(e.format), std::forward<Args>(args)...));
}

}  // namespace sluice
